"""Cases: one configuration (z, H) read and validated, and case mode (every claim decided at one case)."""

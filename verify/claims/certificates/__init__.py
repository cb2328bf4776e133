"""Certificates: the file format, what a certificate's claim is, writing, and `check` for every kind."""

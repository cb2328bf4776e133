"""`python -m verify`: the command line (verify.cli)."""
from verify.cli import main

raise SystemExit(main())

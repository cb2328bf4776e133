"""`python -m verify`: the command line (verify.commandline.cli)."""
from verify.commandline.cli import main

if __name__ == "__main__":  # Dask's worker processes import this module again: they must not run the CLI
    raise SystemExit(main())

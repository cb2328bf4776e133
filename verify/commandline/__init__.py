"""The command line: argument parsing (cli, arguments), the tables a run prints (tables, case_tables) and the
plots. Thin: every piece of work is done by verify.api."""

"""The one error type the CLI turns into a single stderr line and exit status 2."""


class InputError(Exception):
    """Bad user input; the message names the value and the fix, in one line."""

"""The one error type for bad input; the CLI turns it into a single stderr line and exit status 2."""
from verify.base.printable import escaped


class InputError(Exception):
    """Bad user input; the message names the value and the fix, in one line (a control character an echoed value
    brought in, a newline say, is escaped here, so the message stays one line whatever it quotes).

    `parameter` names the library argument at fault (e.g. "n"), so a front end can add its
    own spelling of it (the CLI adds `--n`); the message itself names no command-line flag.
    """

    def __init__(self, message, parameter=None):
        super().__init__(escaped(str(message)))
        self.parameter = parameter

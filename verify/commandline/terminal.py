"""What reaches the terminal: every character a user's data brought in (a lemma's `source`, an `n` value, a file
or folder name) is shown escaped when it is a control character (ESC, carriage return, bidi overrides…), so no
input can move the cursor, clear the screen, retitle the window or hide text. Newlines that the program's own
layout puts between lines are kept. (rich is imported only when a table or a progress bar is made.)"""
import functools

from verify.base.printable import escaped


def safe(text):
    """`text` for the terminal: control characters escaped, the layout's newlines kept."""
    return escaped(str(text), keep="\n")


def safe_console(**options):
    """A rich Console whose text segments are escaped as they are written; rich's own styling and cursor control
    codes are separate segments and pass. Every table and progress bar prints through one."""
    return _safe_console_class()(**options)


@functools.cache
def _safe_console_class():
    from rich.console import Console
    from rich.segment import Segment

    class SafeConsole(Console):
        def _render_buffer(self, buffer):
            return super()._render_buffer(Segment(text if control else safe(text), style, control)
                                          for text, style, control in buffer)

        def on_broken_pipe(self):
            """The reader left (`| head`): stop writing, and let the command line end as it does for any other
            write to a closed pipe, with status 141 (rich's own ending exits with 1)."""
            self.quiet = True
            raise BrokenPipeError()

    return SafeConsole

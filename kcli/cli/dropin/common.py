"""What the four drop-in grammars share: how a command line ends before any request (help, the
version, a usage error) and the options every tool has."""

from __future__ import annotations

from kcli.cli.dropin import jopt
from kcli.cli.dropin.jopt import Opt


class ShowHelp(Exception):
    """Print ``message`` and the tool's help table on stderr; exit 1, as the Java tool does."""


class HelpScreen(Exception):
    """Print ``text`` (a whole help screen) on stdout; exit ``code``: 1, as kafka-transactions does
    after argparse4j's help (kafka-metadata-quorum exits 0)."""

    def __init__(self, text: str, code: int = 1):
        super().__init__(text)
        self.text, self.code = text, code


class ShowVersion(Exception):
    """Print the version on stdout; exit 0."""


class Usage(Exception):
    """Bad usage: one line (``message``) on ``stream``, exit 2, nothing sent. ``stream`` is where
    the Java tool prints that message ("stderr", or "stdout" for its runtime error lines)."""

    def __init__(self, message: str, stream: str = "stderr"):
        super().__init__(message)
        self.message, self.stream = message, stream


HELP = Opt("help", "Print usage information.")
VERSION = Opt("version", "Display Kafka version.")


def check_invalid(parsed, used: str, invalid: list[str]) -> None:
    """CommandLineUtils.checkInvalidArgs: the first of ``invalid`` given with ``used``."""
    if parsed.has(used):
        for other in invalid:
            if parsed.has(other):
                raise Usage(f'Option "[{used}]" can\'t be used with option "[{other}]"')


def start(options, args: list[str], help_text: str, no_args_text: str | None = None,
          error_prefix: str = "") -> jopt.Parsed:
    """How every tool's command line starts: jopt-simple's parse (a usage error, with the tool's
    prefix), then the help (no arguments at all, or ``--help``), then ``--version``."""
    try:
        parsed = jopt.parse(options, args)
    except jopt.JoptError as exc:
        raise Usage(f"{error_prefix}{exc}") from None
    if not args:
        raise ShowHelp(no_args_text or help_text)
    if parsed.has("help"):
        raise ShowHelp(help_text)
    if parsed.has("version"):
        raise ShowVersion()
    return parsed

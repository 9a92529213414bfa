"""kcli's entry point: ``run(argv, stdout, stderr) -> exit code`` builds the command tree a
command line needs (``kcli.cli.tree``), runs it with one invocation's state, and maps every error
to one line on stderr and a documented exit code (0 ok, 1 failed, 2 bad usage/input, 3 partly
applied). ``main`` (the console script), the demo and the tests all go through ``run``."""

from __future__ import annotations

import gc
import os
import sys
from contextlib import redirect_stderr, redirect_stdout

from kcli.cli.dropin import DROPINS
from kcli.cli.globals import FLAGS, WITH_VALUE, fill_optional_values, hoist, leading
from kcli.errors import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_USAGE, INTERRUPTED, KcliError
from kcli.redaction import redact_text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TextIO


def word_positions(args: list[str]) -> list[int]:
    """Where the first two words of a hoisted command line are, global options skipped."""
    at: list[int] = []
    i = 0
    while i < len(args) and len(at) < 2:
        arg = args[i]
        if not arg.startswith("-"):
            at.append(i)
        elif arg in WITH_VALUE:
            i += 1                                  # and its value
        elif arg not in FLAGS and arg.split("=", 1)[0] not in WITH_VALUE:
            break
        i += 1
    return at


def command_words(args: list[str]) -> list[str]:
    """The first two words of a hoisted command line, global options skipped: the command's path."""
    return [args[i] for i in word_positions(args)]


def lag_shorthand(args: list[str]) -> list[str]:
    """``kcli lag [GROUP...]`` is ``kcli lag show [GROUP...]``: "show" goes in after "lag" when
    no subcommand of it follows (``kcli lag --help`` stays the group's help)."""
    from kcli.cli.tree import COMMANDS

    at = word_positions(args)
    if not at or args[at[0]] != "lag":
        return args
    if len(at) == 2 and f"lag {args[at[1]]}" in COMMANDS:
        return args
    if len(at) == 1 and any(a in ("--help", "-h") for a in args):
        return args
    return [*args[:at[0] + 1], "show", *args[at[0] + 1:]]


YOUNG_COLLECTION_THRESHOLD = 50_000     # allocations between young collections in kcli's process


def run(argv: list[str], stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Runs one kcli command line; returns its exit code. Its output goes to ``stdout`` and
    ``stderr`` (default: the process's)."""
    stdout, stderr = stdout or sys.stdout, stderr or sys.stderr
    before, line = leading(list(argv))
    if line and line[0] in DROPINS:        # the Java tool's own command line, as it is
        from kcli.cli.dropin.run import run as run_dropin

        try:        # kcli's global options before the tool's name apply to it (kcli.cli.dropin.run)
            return run_dropin(line[0], line[1:], stdout, stderr, before)
        except BrokenPipeError:                # the Java tools' PrintStream ignores it too
            return _reader_gone(stdout)
        except KeyboardInterrupt:              # one line, as the native commands, no traceback
            stderr.write(f"Error: {INTERRUPTED}\n")
            return EXIT_INTERRUPTED
    # typer (and click, rich) only from here: a drop-in never loads them (``python -X importtime``)
    from kcli.cli.context import State
    from kcli.cli.tree import COMPLETE_COMMAND, build, canonical

    args = lag_shorthand(hoist(list(argv)))
    with redirect_stdout(stdout), redirect_stderr(stderr):
        if COMPLETE_COMMAND in args:
            from kcli.cli import complete

            return complete.run(args)
        words = command_words(args)
        args = fill_optional_values(args, canonical(words))
        return _run(build(words), args, State(stdout=stdout, stderr=stderr))


def _run(app, args: list[str], st) -> int:
    import typer
    from typer._click import exceptions as click_exc  # typer vendors click; pinned in pyproject

    fmt = "json" if any(a in ("-o", "--output") and i + 1 < len(args) and args[i + 1] == "json"
                        or a == "--output=json" for i, a in enumerate(args)) else "table"

    def report(message: str, code: int) -> int:
        from kcli.render.output import Output

        Output(fmt, st.stdout, st.stderr).error(redact_text(message, st.secrets), code)
        return code

    try:
        rv = app(args=args, prog_name="kcli", standalone_mode=False, obj=st)
        if rv == EXIT_INTERRUPTED:      # typer returns 130 for a Ctrl-C, silently; no command does
            return report(INTERRUPTED, EXIT_INTERRUPTED)
        return rv if isinstance(rv, int) else 0
    except typer.Exit as exc:
        return exc.exit_code
    except click_exc.NoArgsIsHelpError as exc:
        st.stdout.write(redact_text(exc.format_message().rstrip(), st.secrets) + "\n")
        return EXIT_USAGE
    except click_exc.UsageError as exc:
        return report(exc.format_message().strip().splitlines()[-1], EXIT_USAGE)
    except (typer.Abort, KeyboardInterrupt):
        return report(INTERRUPTED, EXIT_INTERRUPTED)
    except KcliError as exc:
        return report(exc.message, exc.exit_code)
    except BrokenPipeError:
        return _reader_gone(st.stdout)
    except SystemExit:
        from typer._click.utils import PacifyFlushWrapper

        if isinstance(sys.stdout, PacifyFlushWrapper):     # typer's exit 1 on EPIPE, set only there
            return _reader_gone(st.stdout)
        raise
    except Exception as exc:  # noqa: BLE001 - last resort: one line, never a traceback
        verbose = "--verbose" in args
        return report(f"{type(exc).__name__}: {exc}" if verbose else str(exc) or type(exc).__name__,
                      EXIT_FAILED)
    finally:
        st.stdout.flush()


def _reader_gone(stdout: TextIO) -> int:
    """stdout's reader stopped reading (``kcli ... | head``): not a failure. What is still
    buffered goes nowhere, quietly."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), stdout.fileno())
    except (AttributeError, OSError, ValueError):      # not a file (a test's StringIO)
        pass
    return 0


def main(argv: list[str] | None = None, *, process: bool | None = None) -> None:
    """Runs ``argv`` (default: the process's) and exits. ``process``: the process ends here (the
    console scripts, ``python -m kcli``; default: when ``argv`` is None), not in-process callers."""
    args = sys.argv[1:] if argv is None else argv
    ending = argv is None if process is None else process
    if ending:
        # A command builds what it reads and keeps it to the end: the collector's default young
        # collection every 700 allocations walked 10k groups' answers again and again (list
        # groups ~10% of the process). In-process callers keep their settings.
        gc.set_threshold(YOUNG_COLLECTION_THRESHOLD, *gc.get_threshold()[1:])
    code = run(args)
    if ending:
        # The process ends here (console script, python -m kcli): spare the interpreter's final
        # collections a walk over every object the client libraries built (~40 ms with
        # kafka-python's message classes). Finalization still runs: atexit handlers, flushes.
        gc.freeze()
    sys.exit(code)


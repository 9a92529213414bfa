"""kcli's entry point: global options, the command modules a command line needs (only those are
imported), and the mapping of every error to one line on stderr and a documented exit code (0 ok,
1 failed, 2 bad usage/input, 3 partly applied)."""

from __future__ import annotations

import gc
import importlib
import os
import sys
import time
from typing import Optional

from typer._click import exceptions as click_exc  # typer vendors click; pinned in pyproject
from typer._click.globals import get_current_context
import typer

from kcli import __version__
from kcli.admin.settings import DEFAULT_BOOTSTRAP
from kcli.redaction import redact_text
from kcli.cli.apps import root_app
from kcli.cli.globals import FLAGS, WITH_VALUE, fill_optional_values, hoist
from kcli.errors import EXIT_FAILED, EXIT_USAGE, KcliError, UsageError

COMPLETE_COMMAND = "__complete-names"

# Every command by its words on the command line, in help order, with the module (kcli.cli.*) that
# registers it. A command line naming one of these imports that module only; anything else (help
# of the root or of a group, a mistyped command) imports them all, so help and errors see the
# whole tree.
COMMANDS = {
    "list-offsets": "offsets", "reset-offsets": "groups", "delete-offsets": "groups",
    "demo": "broker", COMPLETE_COMMAND: "complete",
    "list topics": "topics", "list groups": "groups",
    "describe topics": "topics", "describe configs": "configs", "describe groups": "groups",
    "create topic": "topics",
    "alter topic": "topics", "alter configs": "configs",
    "delete topic": "topics", "delete groups": "groups",
    "broker start": "broker",
    "audit timestamps": "audit",
}


def command_words(args: list[str]) -> list[str]:
    """The first two words of a hoisted command line, global options skipped: the command's path."""
    words, i = [], 0
    while i < len(args) and len(words) < 2:
        arg = args[i]
        if not arg.startswith("-"):
            words.append(arg)
        elif arg in WITH_VALUE:
            i += 1                                  # and its value
        elif arg not in FLAGS and arg.split("=", 1)[0] not in WITH_VALUE:
            break
        i += 1
    return words


def load_commands(words: list[str] | None = None) -> None:
    """Imports the module registering the command ``words`` name, or every command module."""
    words = words or [""]
    module = COMMANDS.get(" ".join(words)) or COMMANDS.get(words[0])
    for name in [module] if module else dict.fromkeys(COMMANDS.values()):
        importlib.import_module(f"kcli.cli.{name}")
    # Help order, whatever order the modules came in (tests run many command lines in one process).
    order = {path: i for i, path in enumerate(COMMANDS)}
    for prefix, group in [("", root_app), *((f"{g.name} ", g.typer_instance)
                                            for g in root_app.registered_groups)]:
        group.registered_commands.sort(key=lambda c: order.get(prefix + c.name, len(order)))


def __getattr__(name: str):
    """``app``: the whole command tree (docs generator, demo, tests); ``main`` loads only what
    its command line needs."""
    if name == "app":
        load_commands()
        return root_app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _version(value: bool):
    if value:
        typer.echo(f"kcli {__version__}")
        raise typer.Exit()


@root_app.callback()
def root(
    bootstrap_server: Optional[str] = typer.Option(
        None, "--bootstrap-server", "-b", envvar="KCLI_BOOTSTRAP_SERVER",
        help=f"Kafka bootstrap servers, host:port[,host:port] (default {DEFAULT_BOOTSTRAP})."),
    command_config: Optional[str] = typer.Option(
        None, "--command-config", help="Kafka client properties file (security.protocol, sasl.*, ssl.*)."),
    output: str = typer.Option("table", "--output", "-o", help="table, plain (Kafka tools' layout), json or csv."),
    timeout: str = typer.Option("30s", "--timeout", help="Bound for the whole command, 1 ms to 1 h: 30s, 500ms, PT1M; a bare number is milliseconds, as in the Kafka tools."),
    verbose: bool = typer.Option(False, "--verbose", help="More detail (extra columns, error detail; never secrets)."),
    profile: Optional[str] = typer.Option(
        None, "--profile", envvar="KCLI_PROFILE",
        help="A named cluster from $XDG_CONFIG_HOME/kcli/config.toml (default ~/.config/kcli/config.toml); "
             "-b, KCLI_BOOTSTRAP_SERVER and --command-config override it key by key."),
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Print the version."),
):
    from kcli import profiles
    from kcli.admin.settings import ClientSettings, parse_timeout_ms, read_properties
    from kcli.redaction import secret_values
    from kcli.cli.context import state
    from kcli.inputs import shown
    from kcli.render.output import FORMATS, Output

    st = state()
    if output not in FORMATS:
        raise UsageError(f"Invalid --output '{shown(output)}': use one of {', '.join(FORMATS)}")
    st.output = Output(output)
    timeout_ms = parse_timeout_ms(timeout)
    for flag, value in (("--bootstrap-server", bootstrap_server), ("--command-config", command_config),
                        ("--profile", profile)):
        if value is not None and not value.strip():
            raise UsageError(f"{flag} needs a value")
    chosen = profiles.load_profile(profile)
    _SECRETS[:] = secret_values(chosen.properties) if chosen else []
    cmd_props = read_properties(command_config) if command_config is not None else {}
    _SECRETS[:] = sorted(set(_SECRETS) | set(secret_values(cmd_props)), key=len, reverse=True)
    servers, props = profiles.resolve(chosen, bootstrap_server, cmd_props, DEFAULT_BOOTSTRAP)
    # One deadline for the whole command: every request of it ends by then.
    st.settings = ClientSettings(servers, props, timeout_ms, deadline=time.monotonic() + timeout_ms / 1000)
    st.settings.validate()                  # librdkafka's checks, before any client connects
    st.verbose = verbose
    get_current_context().call_on_close(st.close)


# Secret property values of this invocation (profile and --command-config): no message kcli prints
# may contain one, whatever exception it was built from.
_SECRETS: list[str] = []


def _report(fmt: str, message: str, exit_code: int) -> None:
    from kcli.render.output import Output

    Output(fmt).error(redact_text(message, _SECRETS), exit_code)


def main(argv: list[str] | None = None) -> None:
    _SECRETS.clear()
    args = hoist(list(sys.argv[1:] if argv is None else argv))
    if COMPLETE_COMMAND in args:
        from kcli.cli import complete

        sys.exit(complete.run(args))
    words = command_words(args)
    load_commands(words)
    args = fill_optional_values(args, words)
    fmt = "json" if any(a in ("-o", "--output") and i + 1 < len(args) and args[i + 1] == "json"
                        or a == "--output=json" for i, a in enumerate(args)) else "table"
    code = 0
    try:
        rv = root_app(args=args, prog_name="kcli", standalone_mode=False)
        code = rv if isinstance(rv, int) else 0
    except typer.Exit as exc:
        code = exc.exit_code
    except click_exc.NoArgsIsHelpError as exc:
        sys.stdout.write(redact_text(exc.format_message().rstrip(), _SECRETS) + "\n")
        code = EXIT_USAGE
    except click_exc.UsageError as exc:
        _report(fmt, exc.format_message().strip().splitlines()[-1], EXIT_USAGE)
        code = EXIT_USAGE
    except typer.Abort:
        code = 130
    except KcliError as exc:
        _report(fmt, exc.message, exc.exit_code)
        code = exc.exit_code
    except KeyboardInterrupt:
        code = 130
    except BrokenPipeError:
        code = 0
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except Exception as exc:  # noqa: BLE001 - last resort: one line, never a traceback
        verbose = "--verbose" in args
        _report(fmt, f"{type(exc).__name__}: {exc}" if verbose else str(exc) or type(exc).__name__,
                EXIT_FAILED)
        code = EXIT_FAILED
    sys.stdout.flush()
    if argv is None:
        # The process ends here (console script, python -m kcli): spare the interpreter's final
        # collections a walk over every object the client libraries built (~40 ms with
        # kafka-python's message classes). Finalization still runs: atexit handlers, flushes.
        gc.freeze()
    sys.exit(code)

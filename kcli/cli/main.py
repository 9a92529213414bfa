"""kcli's entry point: the root Typer app, global options, and the mapping of every error to one
line on stderr and a documented exit code (0 ok, 1 failed, 2 bad usage/input, 3 partly applied)."""

from __future__ import annotations

import os
import sys
from typing import Optional

from typer._click import exceptions as click_exc  # typer vendors click; pinned in pyproject
from typer._click.globals import get_current_context
import typer

from kcli import __version__
from kcli.admin.settings import (DEFAULT_BOOTSTRAP, ClientSettings, read_properties, redact_text,
                                 secret_values)
from kcli.cli import apps
from kcli.cli.context import state
from kcli.cli.globals import hoist
from kcli.errors import EXIT_FAILED, EXIT_USAGE, KcliError, UsageError
from kcli.render.output import FORMATS, Output
from kcli.times import TimeParseError, parse_duration_ms

app = typer.Typer(
    name="kcli", no_args_is_help=True, add_completion=False, rich_markup_mode=None,
    help="Operate Apache Kafka: topics, consumer groups and offsets, with partition and group "
         "creation times (KIP-1327, KIP-1282), max-timestamp offsets (KIP-734) and timestamp "
         "bounds (KIP-937). Global options may be given anywhere on the line.",
)
app.add_typer(apps.list_app, name="list")
app.add_typer(apps.describe_app, name="describe")
app.add_typer(apps.create_app, name="create")
app.add_typer(apps.alter_app, name="alter")
app.add_typer(apps.delete_app, name="delete")
app.add_typer(apps.broker_app, name="broker")

# Command families register themselves on the verb groups and on ``app``.
from kcli.cli import topics, configs, offsets, broker, groups  # noqa: E402,F401

app.command("demo")(broker.demo)
from kcli.cli import complete  # noqa: E402 - the hidden __complete-names command
from kcli.cli import audit  # noqa: E402,F401


def _version(value: bool):
    if value:
        typer.echo(f"kcli {__version__}")
        raise typer.Exit()


@app.callback()
def root(
    bootstrap_server: Optional[str] = typer.Option(
        None, "--bootstrap-server", "-b", envvar="KCLI_BOOTSTRAP_SERVER",
        help=f"Kafka bootstrap servers, host:port[,host:port] (default {DEFAULT_BOOTSTRAP})."),
    command_config: Optional[str] = typer.Option(
        None, "--command-config", help="Kafka client properties file (security.protocol, sasl.*, ssl.*)."),
    output: str = typer.Option("table", "--output", "-o", help="table, plain (Kafka tools' layout), json or csv."),
    timeout: str = typer.Option("30s", "--timeout", help="Bound for the whole command: 30s, 500ms, PT1M; a bare number is seconds."),
    verbose: bool = typer.Option(False, "--verbose", help="More detail (extra columns, error detail; never secrets)."),
    profile: Optional[str] = typer.Option(
        None, "--profile", envvar="KCLI_PROFILE",
        help="A named cluster from $XDG_CONFIG_HOME/kcli/config.toml (default ~/.config/kcli/config.toml); "
             "-b, KCLI_BOOTSTRAP_SERVER and --command-config override it key by key."),
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Print the version."),
):
    st = state()
    if output not in FORMATS:
        raise UsageError(f"Invalid --output '{output}': use one of {', '.join(FORMATS)}")
    st.output = Output(output)
    try:
        timeout_ms = parse_duration_ms(timeout)
    except TimeParseError as exc:
        raise UsageError(f"--timeout: {exc}") from None
    if timeout_ms <= 0:
        raise UsageError("--timeout must be positive")
    from kcli import profiles

    chosen = profiles.load_profile(profile)
    _SECRETS[:] = secret_values(chosen.properties) if chosen else []
    cmd_props = read_properties(command_config) if command_config else {}
    _SECRETS[:] = sorted(set(_SECRETS) | set(secret_values(cmd_props)), key=len, reverse=True)
    servers, props = profiles.resolve(chosen, bootstrap_server, cmd_props, DEFAULT_BOOTSTRAP)
    st.settings = ClientSettings(servers, props, timeout_ms)
    st.verbose = verbose
    get_current_context().call_on_close(st.close)


# Secret property values of this invocation (profile and --command-config): no message kcli prints
# may contain one, whatever exception it was built from.
_SECRETS: list[str] = []


def _report(fmt: str, message: str, exit_code: int) -> None:
    Output(fmt).error(redact_text(message, _SECRETS), exit_code)


def main(argv: list[str] | None = None) -> None:
    _SECRETS.clear()
    args = hoist(list(sys.argv[1:] if argv is None else argv))
    if complete.COMMAND in args:
        sys.exit(complete.run(args))
    fmt = "json" if any(a in ("-o", "--output") and i + 1 < len(args) and args[i + 1] == "json"
                        or a == "--output=json" for i, a in enumerate(args)) else "table"
    code = 0
    try:
        rv = app(args=args, prog_name="kcli", standalone_mode=False)
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
    sys.exit(code)

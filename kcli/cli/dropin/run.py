"""Runs a drop-in command line: the tool's grammar (``kcli.cli.dropin.<tool>``) reads it, then its
execution beside it (``kcli.cli.dropin.<tool>_run``) has kcli's operations (``kcli.ops``) do the
work and ``kcli.render``'s plain views print it, so the Java tool's stdout comes out byte for
byte, with the Java tools' way of reporting: where each prints an error, and with which words
(a reset's warnings and refusals: ``kcli.cli.dropin.javawords``). This module holds what every
tool shares: kcli's global options before the tool's name, the console, the connection.

Exit codes: 0 where the Java tool succeeds; 2 for bad usage, before any request (the Java tools
exit 1, and print their help table after the message: kcli prints the message alone); 1 when
the operation failed and 3 when it partly applied, where kafka-consumer-groups exits 0 after
most failures. Stack traces are never printed.

kcli's global options given before the tool's name (``kcli --profile prod kafka-topics --list``,
so that ``alias k='kcli --profile prod'`` runs a runbook's lines) apply to it (``Before``):
``--timeout`` bounds the command, ``-b`` and ``--profile`` supply the bootstrap servers where the
line has no ``--bootstrap-server``, ``--command-config`` and the profile's properties the client
settings (the line's ``--command-config`` overrides them key by key), ``--verbose`` adds a
``Detail:`` line on stderr to an error. ``-o`` is refused unless ``plain``: the drop-ins print the
Java tool's text, which no format changes. A setting given both before the name and in the line
is refused, as the Java tools refuse an option given twice.
"""

from __future__ import annotations

import importlib
import time
from contextlib import contextmanager

from kcli import __version__
from kcli.cli.dropin import TOOLS, jopt
from kcli.cli.dropin.common import HelpScreen, ShowHelp, ShowVersion, Usage
from kcli.errors import EXIT_FAILED, EXIT_USAGE, KcliError, UsageError
from kcli.datatypes import field, datatype

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Sequence, TextIO


@datatype
class Before:
    """kcli's global options given before a drop-in's name, read (see the module's text)."""
    bootstrap: str | None = None          # -b, else the profile's
    bootstrap_given: bool = False         # -b itself (the profile's yields to the line's)
    command_config: str | None = None
    properties: dict[str, str] = field(default_factory=dict)     # the profile's, then --command-config's
    timeout_ms: int | None = None
    verbose: bool = False


def read_before(tool: str, options: list[str]) -> Before:
    """``options`` (kcli.cli.globals.leading's) read and checked; a UsageError for a bad one."""
    from kcli import profiles
    from kcli.admin.settings import parse_timeout_ms, read_properties
    from kcli.cli.globals import check_not_empty, values
    from kcli.inputs import shown

    given = values(options)
    check_not_empty(given)

    def text(name: str) -> str | None:                # a value option's (never a flag's True)
        value = given.get(name)
        return value if isinstance(value, str) else None

    output = given.get("output")
    if output is not None and output != "plain":
        raise UsageError(f"--output {shown(str(output))} does not apply to {tool}: the drop-ins print the Java "
                         f"tool's text (-o plain); kcli's own commands print json and csv (kcli --help)")
    profile = profiles.load_profile(text("profile")) if "profile" in given else None
    command_config = text("command-config")
    bootstrap, properties = profiles.resolve(profile, text("bootstrap-server"),
                                             read_properties(command_config) if command_config is not None else {})
    before = Before(bootstrap=bootstrap, bootstrap_given="bootstrap-server" in given, command_config=command_config,
                    properties=properties, verbose=bool(given.get("verbose")))
    if "timeout" in given:
        before.timeout_ms = parse_timeout_ms(str(given["timeout"]))
    return before


def _line_with(grammar, tool: str, args: list[str], before: Before) -> list[str]:
    """The drop-in's line with the bootstrap servers ``before`` supplies where it has none."""
    try:
        parsed = jopt.parse(grammar.OPTIONS, args)
    except jopt.JoptError:
        return args                                  # the grammar says what is wrong
    for name, given in (("bootstrap-server", before.bootstrap_given),
                        ("command-config", before.command_config is not None)):
        if given and parsed.has(name):
            raise UsageError(f"--{name} is given both before {tool} and in its line: give it once")
    connects_elsewhere = any(map(parsed.has, ("bootstrap-server", "bootstrap-controller", "help", "version")))
    if args and before.bootstrap and not connects_elsewhere:
        return [*args, "--bootstrap-server", before.bootstrap]
    return args


class Console:
    def __init__(self, stdout: TextIO, stderr: TextIO, secrets: list[str], before: Before | None = None):
        self.stdout, self.stderr, self.secrets = stdout, stderr, secrets
        self.before = before or Before()
        self.connected_to: str | None = None                        # what _admin connected to
        self.connected_to_ms: int | None = None

    def write(self, stream: str, text: str) -> None:
        from kcli.redaction import redact_text

        if text:
            (self.stdout if stream == "stdout" else self.stderr).write(redact_text(text, self.secrets))

    def one_file(self) -> bool:
        """stdout and stderr reach one file (a terminal, ``2>&1``): what goes to each must be
        written in the order the Java tool prints it, line by line (its System.out and System.err
        flush each line). Otherwise nothing shows their order, and 10k groups' notices and views
        are written in a few big writes instead of 20k small ones."""
        from kcli.render.output import same_file

        return same_file(self.stdout, self.stderr)

    def failed(self, exc: KcliError) -> int:
        """An error's exit code, after its ``Detail:`` line on stderr under --verbose (before
        the tool's name): the error's kind, Kafka's error code and what caused it."""
        if self.before.verbose:
            parts = [type(exc).__name__]
            error = getattr(exc, "error", None)
            if error is not None:
                parts.append(f"Kafka error {error.name} ({error.code}): {error.message}")
            cause = exc.__cause__ or exc.__context__
            if cause is not None:
                parts.append(f"caused by {type(cause).__name__}: {cause}")
            if self.connected_to is not None:
                parts.append(f"bootstrap servers {self.connected_to}, timeout {self.connected_to_ms} ms")
            self.write("stderr", "Detail: " + "; ".join(parts).replace("\n", " ") + "\n")
        return exc.exit_code

    @property
    def timeout_ms(self) -> int:
        return self.before.timeout_ms or DEFAULT_TIMEOUT_MS


def run(tool: str, args: list[str], stdout: TextIO, stderr: TextIO, before_options: Sequence[str] = ()) -> int:
    """One drop-in command line of ``tool`` (a key of TOOLS), after kcli's global options
    ``before_options`` (given before the tool's name); its exit code. The last resort, as for
    the native commands (``kcli.cli.main``): whatever the tool's own reporting did not foresee
    is one line on stderr, never a traceback (a conversion jopt refuses: usage, 2; anything
    else: 1)."""
    console = Console(stdout, stderr, [])
    try:
        return _run(tool, args, console, list(before_options))
    except (BrokenPipeError, KeyboardInterrupt):
        raise
    except jopt.JoptError as exc:
        console.write("stderr", f"{exc}\n")
        return EXIT_USAGE
    except Exception as exc:  # noqa: BLE001 - last resort: one line, never a traceback
        console.write("stderr", f"Error: {str(exc) or type(exc).__name__}\n")
        return EXIT_FAILED


def _run(tool: str, args: list[str], console: Console, before_options: list[str]) -> int:
    stdout, stderr = console.stdout, console.stderr
    grammar = importlib.import_module(f"kcli.cli.dropin.{TOOLS[tool]}")
    try:
        before = read_before(tool, list(before_options))
        line_with = getattr(grammar, "line_with", None)
        args = line_with(args, before, tool) if line_with else _line_with(grammar, tool, args, before)
    except UsageError as exc:
        stderr.write(f"{exc.message}\n")
        return EXIT_USAGE
    try:
        request = grammar.read(args)
    except ShowHelp as exc:
        stderr.write(f"{exc}\n{jopt.help_text(grammar.OPTIONS)}")
        return 1
    except HelpScreen as exc:
        stdout.write(exc.text)
        return exc.code
    except ShowVersion:
        stdout.write(f"kcli {__version__}\n")
        return 0
    except Usage as exc:
        (stdout if exc.stream == "stdout" else stderr).write(exc.message + "\n")
        return EXIT_USAGE
    from kcli.redaction import secret_values

    console.secrets, console.before = secret_values(before.properties), before
    for stream, line in getattr(request, "notices", []):
        console.write(stream, line + "\n")
    return _EXECUTORS[tool](request, console)


# -- connecting ----------------------------------------------------------------------------------

@contextmanager
def admin_for(bootstrap: str, command_config: str | None, timeout_ms: int, console: Console):
    """The admin adapter for the tool's --bootstrap-server and --command-config (over the
    properties given before the tool's name, key by key), bounded by one deadline; closed at the
    end."""
    from kcli.admin.client import KafkaAdmin
    from kcli.admin.settings import ClientSettings, read_properties
    from kcli.redaction import secret_values

    props = dict(console.before.properties)
    if command_config is not None:
        props.update(read_properties(command_config))
    console.secrets[:] = sorted(set(secret_values(props)), key=len, reverse=True)
    settings = ClientSettings(bootstrap, props, timeout_ms, deadline=time.monotonic() + timeout_ms / 1000)
    settings.validate()
    console.connected_to, console.connected_to_ms = bootstrap, timeout_ms
    admin = KafkaAdmin(settings)
    admin.on_note = lambda line: console.write("stderr", line + "\n")     # kcli.admin.fallback's Warn lines
    try:
        yield admin
    finally:
        admin.close()


def plain_output(console: Console):
    from kcli.render.output import Output

    return Output("plain", console.stdout, console.stderr)


DEFAULT_TIMEOUT_MS = 30_000


def _executor(module: str):
    """A tool's execution (``kcli.cli.dropin.<module>_run``, beside its grammar), imported when run."""
    def execute(request, console: Console) -> int:
        return importlib.import_module(f"kcli.cli.dropin.{module}_run").execute(request, console)
    return execute


_EXECUTORS = {tool: _executor(module) for tool, module in TOOLS.items()}

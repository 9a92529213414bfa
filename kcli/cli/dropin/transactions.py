"""kafka-transactions' command line (Apache Kafka 4.4's TransactionsCommand, on argparse4j): its
global options, subcommands, help texts and checks in the tool's order. Pure."""

from __future__ import annotations

from kcli.cli.dropin import argparse4j as ap
from kcli.cli.dropin.common import HelpScreen, ShowVersion, Usage
from kcli.datatypes import datatype, field

PROG = "kafka-transactions.sh"


def parser() -> ap.Parser:
    """TransactionsCommand's parser: the global options, then one subparser per command."""
    p = ap.Parser(PROG, description="This tool is used to analyze the transactional state of producers in the "
                                    "cluster. It can be used to detect and recover from hanging transactions.",
                  subparsers_title="commands", subparsers_metavar="COMMAND")
    p.add("-h", "--help", help="show this help message and exit", type="flag", action="help")
    p.add("-v", "--version", help="show the version of this Kafka distribution and exit", type="flag",
          action="version")
    p.add("--command-config", help="property file containing configs to be passed to admin client", metavar="FILE")
    p.add("--bootstrap-server", help="hostname and port for the broker to connect to, in the form `host:port`  "
          "(multiple comma-separated entries can be given)", metavar="host:port", required=True)

    s = p.sub("list", "list transactions")
    s.add("--duration-filter", help="Duration (in millis) to filter by: if < 0, all transactions will be returned; "
          "otherwise, only transactions running longer than this duration will be returned", type="Long")
    s.add("--transactional-id-pattern", help="Transactional id regular expression pattern to filter by")

    s = p.sub("describe", "describe the state of an active transactional-id",
              "Describe the state of an active transactional-id.")
    s.add("--transactional-id", help="transactional id", required=True)

    s = p.sub("describe-producers", "describe the states of active producers for a topic partition")
    s.add("--broker-id", help="optional broker id to describe the producer state on a specific replica",
          type="Integer")
    s.add("--topic", help="topic name", required=True)
    s.add("--partition", help="partition number", type="Integer", required=True)

    s = p.sub("abort", "abort a hanging transaction (requires administrative privileges)")
    s.add("--topic", help="topic name", required=True)
    s.add("--partition", help="partition number", type="Integer", required=True)
    new = s.group("Brokers on versions 3.0 and above",
                  "For newer brokers, only the start offset of the transaction to be aborted is required")
    s.add("--start-offset", help="start offset of the transaction to abort", type="Long", group=new)
    old = s.group("Brokers on versions older than 3.0", "For older brokers, you must provide all of these arguments")
    s.add("--producer-id", help="producer id", type="Long", group=old)
    s.add("--producer-epoch", help="producer epoch", type="Short", group=old)
    s.add("--coordinator-epoch", help="coordinator epoch", type="Integer", group=old)

    s = p.sub("find-hanging", "find hanging transactions")
    s.add("--broker-id", help="broker id to search for hanging transactions", type="Integer")
    s.add("--max-transaction-timeout", help="maximum transaction timeout in minutes to limit the scope of the search "
          "(15 minutes by default)", type="Integer", default=15)
    s.add("--topic", help="topic name to limit search to (required if --partition is specified)")
    s.add("--partition", help="partition number", type="Integer")

    s = p.sub("forceTerminateTransaction", "Force abort an ongoing transaction on transactionalId (requires "
              "administrative privileges)", "Force abort an ongoing transaction on transactionalId")
    s.add("--transactionalId", help="transactional id", required=True)
    return p


@datatype
class TransactionsRequest:
    command: str
    values: dict[str, object] = field(default_factory=dict)
    notices: list[tuple[str, str]] = field(default_factory=list)

    def get(self, name: str):
        return self.values.get(name)

    @property
    def bootstrap(self) -> str:
        return str(self.values["bootstrap_server"])

    @property
    def command_config(self) -> str | None:
        value = self.values.get("command_config")
        return None if value is None else str(value)


def read(args: list[str]) -> TransactionsRequest:
    """The parsed line, or: HelpScreen (-h), ShowVersion (-v), Usage: argparse4j's error as one
    line (the Java tool prints its usage line before it and wraps it at 75 columns), or one of
    the checks TransactionsCommand makes before its first request (``check``), its words."""
    p = parser()
    try:
        values = p.parse(args)
    except ap.HelpRequested as exc:
        raise HelpScreen(exc.parser.help_text()) from None
    except ap.VersionRequested:
        raise ShowVersion() from None
    except ap.ArgparseError as exc:
        raise Usage(f"{PROG}: error: {exc.message}") from None
    request = TransactionsRequest(str(values.pop("command")), values)
    check(request)
    return request


def check(req: TransactionsRequest) -> None:
    """TransactionsCommand's checks of a command's arguments (it makes them after connecting,
    before any request; kcli before connecting): its messages."""
    get = req.values.get
    if req.command == "find-hanging":
        if get("topic") is None and get("broker_id") is None:
            raise Usage("The `find-hanging` command requires either --topic or --broker-id to limit the scope of "
                        "the search")
        if get("partition") is not None and get("topic") is None:
            raise Usage("The --partition argument requires --topic to be provided")
    if req.command == "abort" and get("start_offset") is None:
        if get("producer_id") is None:
            raise Usage("The transaction to abort must be identified either with --start-offset (for brokers on "
                        "3.0 or above) or with --producer-id, --producer-epoch, and --coordinator-epoch (for older "
                        "brokers)")
        for name in ("producer_epoch", "coordinator_epoch"):
            if get(name) is None:
                raise Usage(f"Missing required argument --{name.replace('_', '-')}")


def line_with(args: list[str], before, tool: str) -> list[str]:
    """The line with the bootstrap servers ``before`` (kcli's options before the tool's name)
    supplies where it has none, put first: argparse4j takes global options before the command."""
    from kcli.errors import UsageError

    given = {w.partition("=")[0] for w in args}
    for name, was_given in (("--bootstrap-server", before.bootstrap_given),
                            ("--command-config", before.command_config is not None)):
        if was_given and name in given:
            raise UsageError(f"{name} is given both before {tool} and in its line: give it once")
    if args and before.bootstrap and "--bootstrap-server" not in given and not given & {"-h", "--help", "-v",
                                                                                          "--version"}:
        return ["--bootstrap-server", before.bootstrap, *args]
    return args


def _options() -> list:
    """The long options of every command, as jopt's Opt (shell completion and the man page read
    a drop-in's OPTIONS); the commands themselves are words, not options."""
    from kcli.cli.dropin.jopt import FLAG, REQUIRED, Opt

    p = parser()
    seen: dict[str, Opt] = {}
    for arg in [*p.args, *(a for s in p.subparsers for a in s.args)]:
        name = arg.flags[-1].lstrip("-")
        seen.setdefault(name, Opt(name, arg.help, REQUIRED if arg.takes_value else FLAG))
    return list(seen.values())


def __getattr__(name: str):
    if name == "OPTIONS":                   # built when asked: a command line never needs it
        return _options()
    raise AttributeError(name)

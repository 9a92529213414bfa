"""kafka-cluster's command line (Apache Kafka 4.4's ClusterTool, on argparse4j): its commands
(cluster-id, unregister, unregister-controller, list-endpoints, api-versions), their options, help
texts and checks in the tool's order. Pure."""

from __future__ import annotations

from kcli.cli.dropin import argparse4j as ap
from kcli.cli.dropin.common import HelpScreen, Usage
from kcli.datatypes import datatype, field

PROG = "kafka-cluster"
COMMANDS = ("cluster-id", "unregister", "unregister-controller", "list-endpoints", "api-versions")
DEPRECATED_CONFIG = ("Option --config has been deprecated and will be removed in a future version. Use "
                     "--command-config instead.")


def parser() -> ap.Parser:
    """ClusterTool's parser: one subparser per command, each with the connection options (a
    required mutually exclusive pair), --config and --command-config."""
    p = ap.Parser(PROG, description="The Kafka cluster tool.", subparsers_metavar="{" + ",".join(COMMANDS) + "}")
    p.add("-h", "--help", help="show this help message and exit", type="flag", action="help")
    helps = {"cluster-id": "Get information about the ID of a cluster.", "unregister": "Unregister a broker.",
             "unregister-controller": "Unregister a controller.", "list-endpoints": "List endpoints",
             "api-versions": "Get information about the api versions of the brokers or controllers."}
    subs = {}
    for command in COMMANDS:
        s = subs[command] = p.sub(command, helps[command])
        connection = s.exclusive(required=True)
        s.add("--bootstrap-server", "-b", help="A list of host/port pairs to use for establishing the connection "
              "to the Kafka cluster.", exclusive=connection)
        s.add("--bootstrap-controller", "-C", help="A list of host/port pairs to use for establishing the "
              "connection to the KRaft controllers.", exclusive=connection)
        s.add("--config", help="(DEPRECATED) A property file containing configurations for the Admin client. "
              "This option will be removed in a future version. Use --command-config instead.")
        s.add("--command-config", "-c", help="Config properties file for the Admin client.")
    subs["unregister"].add("--id", "-i", help="The ID of the broker to unregister.", type="Integer", required=True)
    subs["unregister-controller"].add("--id", "-i", help="The ID of the controller to unregister.", type="Integer",
                                      required=True)
    subs["list-endpoints"].add("--include-fenced-brokers", help="Whether to include fenced brokers when listing "
                               "broker endpoints", action="store_true")
    return p


@datatype
class ClusterRequest:
    command: str
    bootstrap: str | None
    controllers: str | None               # --bootstrap-controller
    command_config: str | None            # --command-config, else --config
    node_id: int | None = None            # unregister's and unregister-controller's --id
    include_fenced: bool = False
    notices: list[tuple[str, str]] = field(default_factory=list)


def read(args: list[str]) -> ClusterRequest:
    """The parsed line, or HelpScreen (-h), Usage: argparse4j's error as one line (the Java tool
    prints its usage before it, wrapped at 75 columns), or one of ClusterTool's checks (it makes
    them after its parse or after connecting; kcli before connecting), its words."""
    try:
        values = parser().parse(args)
    except ap.HelpRequested as exc:
        raise HelpScreen(exc.parser.help_text()) from None
    except ap.ArgparseError as exc:
        raise Usage(f"{PROG}: error: {exc.message}") from None
    config, command_config = values.get("config"), values.get("command_config")
    if config is not None and command_config is not None:
        raise Usage("--config and --command-config cannot be specified together.")
    def text(key: str) -> str | None:
        value = values.get(key)
        return None if value is None else str(value)

    chosen = command_config if command_config is not None else config
    number = values.get("id")
    req = ClusterRequest(str(values["command"]), text("bootstrap_server"), text("bootstrap_controller"),
                         None if chosen is None else str(chosen), None if number is None else int(str(number)),
                         bool(values.get("include_fenced_brokers")))
    if req.include_fenced and req.controllers is not None:
        raise Usage("The option --include-fenced-brokers is only supported with --bootstrap-server option")
    if config is not None:
        req.notices.append(("stdout", DEPRECATED_CONFIG))
    return req


def line_with(args: list[str], before, tool: str) -> list[str]:
    """The line with the bootstrap servers ``before`` (kcli's options before the tool's name)
    supplies where it names neither brokers nor controllers: appended, where the command's
    parser reads them."""
    from kcli.errors import UsageError

    given = {w.partition("=")[0] for w in args}
    for names, was_given in ((("--bootstrap-server", "-b"), before.bootstrap_given),
                             (("--command-config", "-c", "--config"), before.command_config is not None)):
        if was_given and given & set(names):
            raise UsageError(f"{names[0]} is given both before {tool} and in its line: give it once")
    connects = {"--bootstrap-server", "-b", "--bootstrap-controller", "-C", "-h", "--help"}
    if args and before.bootstrap and not given & connects:
        return [*args, "--bootstrap-server", before.bootstrap]
    return args


def _options() -> list:
    """The long options of every command, as jopt's Opt (shell completion and the man page read
    a drop-in's OPTIONS); the commands themselves are words, not options."""
    from kcli.cli.dropin.jopt import FLAG, REQUIRED, Opt

    p = parser()
    seen: dict[str, Opt] = {}
    for arg in [*p.args, *(a for s in p.subparsers for a in s.args)]:
        name = arg.flags[0].lstrip("-") if arg.flags[0].startswith("--") else arg.flags[-1].lstrip("-")
        seen.setdefault(name, Opt(name, arg.help, REQUIRED if arg.takes_value else FLAG))
    return list(seen.values())


def __getattr__(name: str):
    if name == "OPTIONS":                   # built when asked: a command line never needs it
        return _options()
    raise AttributeError(name)

"""kafka-metadata-quorum's command line (Apache Kafka 4.4's MetadataQuorumCommand, on argparse4j):
its options, subcommands, help texts and the checks it makes before its first request, in the
tool's order. Pure."""

from __future__ import annotations

import os

from kcli.cli.dropin import argparse4j as ap
from kcli.cli.dropin.common import HelpScreen, Usage
from kcli.datatypes import datatype, field

PROG = "kafka-metadata-quorum"


def parser() -> ap.Parser:
    p = ap.Parser(PROG, description="This tool describes kraft metadata quorum status.",
                  subparsers_metavar="{describe,add-controller,remove-controller}")
    p.add("-h", "--help", help="show this help message and exit", type="flag", action="help")
    connection = p.exclusive(required=True)
    p.add("--bootstrap-server", help="A comma-separated list of host:port pairs to use for establishing the "
          "connection to the Kafka cluster.", exclusive=connection)
    p.add("--bootstrap-controller", help="A comma-separated list of host:port pairs to use for establishing the "
          "connection to the Kafka controllers.", exclusive=connection)
    p.add("--command-config", help="Property file containing configs to be passed to Admin Client. For "
          "add-controller, the file is used to specify the controller properties as well.")

    s = p.sub("describe", "Describe the metadata quorum info")
    status = s.group("Status", "")
    s.add("--status", help="A short summary of the quorum status and the other provides detailed information "
          "about the status of replication.", action="store_true", group=status)
    replication = s.group("Replication", "")
    s.add("--replication", help="Detailed information about the status of replication", action="store_true",
          group=replication)
    s.add("--human-readable", help="Human-readable output", action="store_true", group=replication)

    s = p.sub("add-controller", "Add a controller to the KRaft controller cluster")
    s.add("--dry-run", help="True if we should print what would be done, but not do it.", action="store_true")

    s = p.sub("remove-controller", "Remove a controller from the KRaft controller cluster")
    s.add("--controller-id", "-i", help="The id of the controller to remove.", type="Integer", required=True)
    s.add("--controller-directory-id", "-d", help="The directory ID of the controller to remove.", required=True)
    s.add("--dry-run", help="True if we should print what would be done, but not do it.", action="store_true")
    s.add("--unregister", help="If set, also unregister the controller after successfully removing it from the "
          "voter set.", action="store_true")
    return p


@datatype
class QuorumRequest:
    command: str
    values: dict[str, object] = field(default_factory=dict)

    def get(self, name: str):
        return self.values.get(name)

    @property
    def bootstrap(self) -> str:
        return str(self.values["bootstrap_server"])

    @property
    def command_config(self) -> str | None:
        value = self.values.get("command_config")
        return None if value is None else str(value)


def read(args: list[str]) -> QuorumRequest:
    """The parsed line, or: HelpScreen (-h: exit 0), Usage: argparse4j's error as one line (the
    Java tool prints its usage line before it and wraps it at 75 columns), or one of the checks
    the tool makes before its first request, in its words (it makes them after creating its
    admin client, and exits 1)."""
    p = parser()
    try:
        values = p.parse(args)
    except ap.HelpRequested as exc:
        raise HelpScreen(exc.parser.help_text(), code=0) from None
    except ap.ArgparseError as exc:
        raise Usage(f"{PROG}: error: {exc.message}") from None
    request = QuorumRequest(str(values.pop("command")), values)
    check(request)
    return request


def check(req: QuorumRequest) -> None:
    get = req.values.get
    config = get("command_config")
    if config is not None and not os.path.exists(str(config)):
        raise Usage(f"Properties file {config} does not exist.")
    if req.command == "describe":
        if get("status") and get("replication"):
            raise Usage("Only one of --status or --replication should be specified with describe sub-command")
        if get("status") and get("human_readable"):
            raise Usage("The option --human-readable is only supported along with --replication")
        if not get("status") and not get("replication"):
            raise Usage("One of --status or --replication must be specified with describe sub-command")
    if req.command == "add-controller" and config is None:
        raise Usage("You must supply the configuration file of the controller you are adding when using "
                    "add-controller.")
    if req.command == "remove-controller" and int(get("controller_id")) < 0:   # type: ignore[call-overload]
        raise Usage(f"Invalid negative --controller-id: {get('controller_id')}")


def line_with(args: list[str], before, tool: str) -> list[str]:
    """As kafka-transactions' (the bootstrap servers given before the tool's name put first),
    unless the line names the controllers instead."""
    from kcli.cli.dropin.transactions import line_with as global_options_first

    if any(w.partition("=")[0] == "--bootstrap-controller" for w in args):
        return args
    return global_options_first(args, before, tool)


def _options() -> list:
    """The long options of every command, as jopt's Opt (shell completion and the man page)."""
    from kcli.cli.dropin.jopt import FLAG, REQUIRED, Opt

    p = parser()
    seen: dict[str, Opt] = {}
    for arg in [*p.args, *(a for s in p.subparsers for a in s.args)]:
        name = arg.dest.replace("_", "-")
        seen.setdefault(name, Opt(name, arg.help, REQUIRED if arg.takes_value else FLAG))
    return list(seen.values())


def __getattr__(name: str):
    if name == "OPTIONS":                   # built when asked: a command line never needs it
        return _options()
    raise AttributeError(name)

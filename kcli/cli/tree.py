"""The command tree, built explicitly from one table: each command is a plain function of a
module of ``kcli.cli``; ``build(words)`` attaches the one a command line names (only its module is
imported: ``kcli --help`` stays fast), or every command, for help, errors and the docs. Nothing is
registered by importing a module; the root's global options are ``root_options``."""

from __future__ import annotations

import importlib
import time
from typing import Any, Optional

import typer
from typer._click.core import ParameterSource
from typer._click.globals import get_current_context  # typer vendors click; pinned in pyproject

from kcli import __version__
from kcli.admin.settings import DEFAULT_BOOTSTRAP
from kcli.cli.dropin import DROPINS
from kcli.errors import UsageError

COMPLETE_COMMAND = "__complete-names"

# Every command by its words on the command line, in help order: (module of kcli.cli, function).
COMMANDS: dict[str, tuple[str, str]] = {
    "list-offsets": ("offsets", "list_offsets"),
    "reset-offsets": ("groups", "reset_offsets"),
    "delete-offsets": ("groups", "delete_offsets"),
    "delete-records": ("records", "delete_records"),
    "demo": ("broker", "demo"),
    COMPLETE_COMMAND: ("complete", "complete_names"),
    "list topics": ("topics", "list_topics"),
    "list groups": ("groups", "list_groups"),
    "list acls": ("acls", "list_acls"),
    "create acl": ("acls", "create_acl"),
    "delete acls": ("acls", "delete_acls"),
    "describe topics": ("topics", "describe_topics"),
    "describe configs": ("configs", "describe_configs"),
    "describe groups": ("groups", "describe_groups"),
    "describe cluster": ("cluster", "describe_cluster"),
    "describe log-dirs": ("logdirs", "describe_log_dirs"),
    "create topic": ("topics", "create_topic"),
    "alter topics": ("topics", "alter_topic"),
    "alter configs": ("configs", "alter_configs"),
    "delete topics": ("topics", "delete_topic"),
    "delete groups": ("groups", "delete_groups"),
    "broker start": ("broker", "start"),
    "audit timestamps": ("audit", "timestamps"),
    "kafka-topics": ("dropin.commands", "kafka_topics"),
    "kafka-consumer-groups": ("dropin.commands", "kafka_consumer_groups"),
    "kafka-get-offsets": ("dropin.commands", "kafka_get_offsets"),
    "kafka-configs": ("dropin.commands", "kafka_configs"),
    "kafka-streams-groups": ("dropin.commands", "kafka_streams_groups"),
    "kafka-acls": ("dropin.commands", "kafka_acls"),
    "kafka-transactions": ("dropin.commands", "kafka_transactions"),
    "kafka-delete-records": ("dropin.commands", "kafka_delete_records"),
    "kafka-log-dirs": ("dropin.commands", "kafka_log_dirs"),
    "kafka-cluster": ("dropin.commands", "kafka_cluster"),
    "kafka-metadata-quorum": ("dropin.commands", "kafka_metadata_quorum"),
    "kafka-features": ("dropin.commands", "kafka_features"),
    "kafka-leader-election": ("dropin.commands", "kafka_leader_election"),
    "kafka-reassign-partitions": ("dropin.commands", "kafka_reassign_partitions"),
    "kafka-share-groups": ("dropin.commands", "kafka_share_groups"),
    "completion": ("complete", "completion"),
    "check expansions": ("check", "expansions"),
    "check broker": ("check", "broker"),
    "check transactions": ("check", "transactions"),
    "list transactions": ("transactions", "list_transactions"),
    "describe transactions": ("transactions", "describe_transactions"),
    "abort transaction": ("transactions", "abort_transaction"),
    "lag serve": ("lag", "serve"),
    "lag show": ("lag", "show"),
    "reassign partitions": ("reassign", "reassign_partitions"),
    "elect leaders": ("reassign", "elect_leaders"),
    "describe quotas": ("quotas", "describe_quotas"),
    "alter quotas": ("quotas", "alter_quotas"),
}
# Each command's summary in ``kcli --help`` (and its group's help): one whole sentence of at most
# SHORT_MAX characters, so that click never cuts it at 80 columns (78 - 6 - the longest name,
# kafka-consumer-groups). tests/cli/test_help.py holds every summary to it.
SHORT_MAX = 51
SHORT_HELP: dict[str, str] = {
    "list-offsets": "Offsets per partition, and a record's time.",
    "reset-offsets": "Reset a group's offsets; a dry run by default.",
    "delete-offsets": "Delete committed offsets of a group.",
    "delete-records": "Delete records below offsets; dry run by default.",
    "demo": "Play the KIP story on an embedded broker.",
    COMPLETE_COMMAND: "List names for shell completion.",
    "list topics": "List topic names (kafka-topics --list).",
    "list groups": "List consumer groups.",
    "list acls": "List ACLs (kafka-acls --list).",
    "create acl": "Create ACLs, linted first (kafka-acls --add).",
    "delete acls": "Delete ACLs; a dry run unless --execute.",
    "describe topics": "Partitions, replicas and creation times.",
    "describe configs": "Configs, with the KIP-937 timestamp bounds.",
    "describe groups": "Offsets, lag, members or state of groups.",
    "describe cluster": "Cluster id, controller and brokers.",
    "describe log-dirs": "Replica sizes in bytes, per broker log dir.",
    "create topic": "Create a topic (kafka-topics --create).",
    "alter topics": "Increase the partition count of topics.",
    "alter configs": "Set or delete config overrides.",
    "delete topics": "Delete every matching topic.",
    "delete groups": "Delete consumer or streams groups.",
    "broker start": "Serve the Kafka protocol until stopped.",
    "audit timestamps": "Scan record timestamps per partition on Spark.",
    "kafka-topics": "kafka-topics' own command line.",
    "kafka-consumer-groups": "kafka-consumer-groups' own command line.",
    "kafka-get-offsets": "kafka-get-offsets' own command line.",
    "kafka-configs": "kafka-configs' own command line.",
    "kafka-streams-groups": "kafka-streams-groups' own command line.",
    "kafka-acls": "kafka-acls' own command line, ACLs linted.",
    "kafka-transactions": "kafka-transactions' own command line.",
    "kafka-delete-records": "kafka-delete-records' own command line.",
    "kafka-log-dirs": "kafka-log-dirs' own command line.",
    "kafka-cluster": "kafka-cluster's own command line.",
    "kafka-metadata-quorum": "kafka-metadata-quorum's own command line.",
    "kafka-features": "kafka-features' own command line.",
    "kafka-leader-election": "kafka-leader-election's own command line.",
    "kafka-reassign-partitions": "kafka-reassign-partitions' own command line.",
    "kafka-share-groups": "kafka-share-groups' own command line.",
    "completion": "Print the shell completion script.",
    "check expansions": "Find partitions added to topics recently.",
    "check broker": "Check the cluster against the KIPs' rules.",
    "check transactions": "Find transactions holding the LSO back.",
    "list transactions": "List transactional ids and their state.",
    "describe transactions": "Producer, state and partitions of transactions.",
    "abort transaction": "Abort an open transaction; a dry run by default.",
    "lag serve": "Export exact lag to Prometheus until stopped.",
    "lag show": "Lag in offsets and time, rolled up and filtered.",
    "reassign partitions": "Move replicas: generate, execute, verify, cancel.",
    "elect leaders": "Elect leaders; a dry run by default.",
    "describe quotas": "Client quotas of users, client ids and IPs.",
    "alter quotas": "Set or remove quotas; a dry run by default.",
}
HIDDEN = frozenset({COMPLETE_COMMAND})
# The drop-in commands take the Java tools' command lines as they are: ``kcli.cli.main.run``
# hands their words to ``kcli.cli.dropin`` untouched, and Typer leaves them alone too.
_DROPIN_SETTINGS: dict[str, Any] = dict(context_settings={"allow_extra_args": True, "ignore_unknown_options": True,
                                          "help_option_names": []}, add_help_option=False)
# The other number of each command's noun, accepted too (hidden from help, the man pages and
# completion): the canonical form is plural where the command takes several names, singular
# where it takes one (create topic).
ALIASES: dict[str, str] = {
    "list topic": "list topics", "list group": "list groups",
    "describe topic": "describe topics", "describe group": "describe groups",
    "describe config": "describe configs", "describe clusters": "describe cluster",
    "describe log-dir": "describe log-dirs", "create topics": "create topic",
    "alter topic": "alter topics", "alter config": "alter configs",
    "delete topic": "delete topics", "delete group": "delete groups",
    "audit timestamp": "audit timestamps",
    "list acl": "list acls", "create acls": "create acl", "delete acl": "delete acls",
    "list transaction": "list transactions", "describe transaction": "describe transactions",
    "check transaction": "check transactions", "abort transactions": "abort transaction",
    "reassign partition": "reassign partitions", "elect leader": "elect leaders",
    "describe quota": "describe quotas", "alter quota": "alter quotas",
}
GROUPS = {
    "list": "List topics, groups, ACLs or transactions.",
    "describe": "Describe what the cluster holds. Topics, groups, configs, log-dirs, the cluster, transactions, "
                "quotas.",
    "abort": "Abort an open transaction.",
    "create": "Create a topic or ACLs.",
    "alter": "Alter topics' partitions, configs or quotas.",
    "delete": "Delete topics, consumer groups or ACLs.",
    "broker": "The embedded broker, for development and tests.",
    "audit": "Scan topic data on Spark (local or --master).",
    "check": "Check the cluster: exit non-zero on a problem.",
    "lag": "Lag of groups in offsets and in time.",
    "reassign": "Move partitions between brokers.",
    "elect": "Elect partition leaders.",
}
ROOT_HELP = ("Operate Apache Kafka: topics, consumer groups and offsets, with partition and group "
             "creation times (KIP-1327, KIP-1282), max-timestamp offsets (KIP-734) and timestamp "
             "bounds (KIP-937). Global options may be given anywhere on the line; before a drop-in's name "
             "(kcli --profile prod kafka-topics ...) they apply to the Java tool's line after it.")
_COMMON: dict[str, Any] = dict(no_args_is_help=True, add_completion=False, rich_markup_mode=None)


def canonical(words: list[str]) -> list[str]:
    """A command line's first words with an alias (``delete topic``) replaced by its command."""
    path = ALIASES.get(" ".join(words[:2]))
    return path.split(" ") + list(words[2:]) if path else list(words)


def selected(words: list[str] | None) -> list[str]:
    """The command paths a command line's first words name: one, or all of them."""
    words = canonical(words or [])
    for path in (" ".join(words[:2]), words[0] if words else ""):
        if path in COMMANDS:
            return [path]
    return list(COMMANDS)


def aliases_of(path: str) -> list[str]:
    return [alias for alias, target in ALIASES.items() if target == path]


def build(words: list[str] | None = None) -> typer.Typer:
    """A new root app holding the commands ``words`` name (see ``selected``)."""
    from kcli.cli.examples import epilog

    root = typer.Typer(name="kcli", help=ROOT_HELP, epilog=epilog(""), **_COMMON)
    root.callback()(root_options)
    groups: dict[str, typer.Typer] = {}
    for path in selected(words):
        module, function = COMMANDS[path]
        command = getattr(importlib.import_module(f"kcli.cli.{module}"), function)
        *group, name = path.split(" ")
        parent = root
        if group:
            if group[0] not in groups:
                groups[group[0]] = typer.Typer(help=GROUPS[group[0]], **_COMMON)
                root.add_typer(groups[group[0]], name=group[0])
            parent = groups[group[0]]
        parent.command(name, hidden=path in HIDDEN, epilog=epilog(path), short_help=SHORT_HELP[path],
                       **(_DROPIN_SETTINGS if path in DROPINS else {}))(command)
        for alias in aliases_of(path):
            parent.command(alias.split(" ")[-1], hidden=True, epilog=epilog(path))(command)
    return root


def _version(value: bool):
    if value:
        typer.echo(f"kcli {__version__}")
        raise typer.Exit()


def root_options(
    bootstrap_server: Optional[str] = typer.Option(
        None, "--bootstrap-server", "-b", envvar="KCLI_BOOTSTRAP_SERVER",
        help=f"Kafka bootstrap servers, host:port[,host:port] (default {DEFAULT_BOOTSTRAP})."),
    command_config: Optional[str] = typer.Option(
        None, "--command-config", help="Kafka client properties file (security.protocol, sasl.*, ssl.*)."),
    output: str = typer.Option("table", "--output", "-o", help="table, plain (Kafka tools' layout), json or csv."),
    timeout: str = typer.Option("30s", "--timeout",
                                help="Bound for the whole command, 1 ms to 1 h: 30s, 500ms, PT1M; a bare number is "
                                     "milliseconds, as in the Kafka tools."),
    verbose: bool = typer.Option(False, "--verbose", help="More detail (extra columns, error detail; never secrets)."),
    profile: Optional[str] = typer.Option(
        None, "--profile", envvar="KCLI_PROFILE",
        help="A named cluster from $XDG_CONFIG_HOME/kcli/config.toml (default ~/.config/kcli/config.toml); "
             "-b and --command-config override it key by key; KCLI_BOOTSTRAP_SERVER only a profile "
             "not typed as --profile."),
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Print the version."),
):
    from kcli import profiles
    from kcli.admin.settings import ClientSettings, parse_timeout_ms, read_properties
    from kcli.redaction import secret_values
    from kcli.cli.context import state
    from kcli.cli.globals import check_not_empty
    from kcli.inputs import shown
    from kcli.render.output import FORMATS, Output

    st = state()
    if output not in FORMATS:
        raise UsageError(f"Invalid --output '{shown(output)}': use one of {', '.join(FORMATS)}")
    st.output = Output(output, st.stdout, st.stderr)
    timeout_ms = parse_timeout_ms(timeout)
    check_not_empty({"bootstrap-server": bootstrap_server, "command-config": command_config, "profile": profile})
    chosen = profiles.load_profile(profile)
    cmd_props = read_properties(command_config) if command_config is not None else {}
    st.secrets[:] = secret_values(chosen.properties if chosen else {}, cmd_props)
    ctx = get_current_context()
    env_bootstrap = None
    if ctx.get_parameter_source("bootstrap_server") is ParameterSource.ENVIRONMENT:
        env_bootstrap, bootstrap_server = bootstrap_server, None
    servers, props = profiles.resolve(
        chosen, bootstrap_server, cmd_props, DEFAULT_BOOTSTRAP, env_bootstrap=env_bootstrap,
        profile_typed=ctx.get_parameter_source("profile") is ParameterSource.COMMANDLINE)
    # One deadline for the whole command: every request of it ends by then.
    st.settings = ClientSettings(servers or DEFAULT_BOOTSTRAP, props, timeout_ms,
                                 deadline=time.monotonic() + timeout_ms / 1000)
    st.settings.validate()                  # librdkafka's checks, before any client connects
    if warning := st.settings.ignored_warning():
        st.output.note(warning)
    st.verbose = verbose
    ctx.call_on_close(st.close)



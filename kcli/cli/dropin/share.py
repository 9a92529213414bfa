"""kafka-share-groups' command line (Apache Kafka 4.4's ShareGroupCommandOptions, KIP-932): its
options, help texts and checks in the tool's order. Pure. The reset scenarios' options are
kafka-consumer-groups' (``groups.OPTIONS``), the same words."""

from __future__ import annotations

from kcli.cli.dropin import groups
from kcli.cli.dropin.common import HELP, VERSION, Usage, check_invalid, start
from kcli.cli.dropin.jopt import OPTIONAL, REQUIRED, Opt

_SHARED = {o.name: o for o in groups.OPTIONS}
NL = "\n"
OPTIONS = [
    Opt("bootstrap-server", "REQUIRED: The server(s) to connect to.", REQUIRED, describe="server to connect to"),
    Opt("group", "The share group id.", REQUIRED, describe="group id"),
    Opt("topic", "The topic whose offset information should be deleted or reset. When resetting offsets, "
        "partitions can be specified using this format: `topic:0,1,2`, where 0,1,2 are the partitions to be "
        "included.", REQUIRED, describe="topic"),
    Opt("all-topics", "Apply to all topics. Supported operation: reset-offsets."),
    Opt("list", "List all share groups."),
    Opt("describe", "Describe share group, members and offset information."),
    Opt("all-groups", "Apply to all share groups."),
    Opt("delete", "Delete share group."),
    Opt("timeout", "The timeout that can be set for some use cases. For example, it can be used when describing "
        "the group to specify the maximum amount of time in milliseconds to wait before the group stabilizes.",
        REQUIRED, "Long", "timeout (ms)", default="30000"),
    Opt("command-config", "Property file containing configs to be passed to Admin Client.", REQUIRED,
        describe="command config property file"),
    Opt("reset-offsets", "Reset offsets of share group. Supports one share group at a time, and instances must be "
        "inactive." + NL + "Has 2 execution options: --dry-run to plan which offsets to reset, and --execute to "
        "reset the offsets. " + NL + "Additionally, the --export option can be used to generate the offsets in CSV "
        "format for export to a file." + NL + "You must choose one of the following reset specifications: "
        "--to-datetime, --to-earliest, --to-latest, --from-file, --to-current, --to-offset." + NL + "To define the "
        "scope, use --all-topics or --topic. The scope must be specified unless you use --from-file." + NL
        + "Fails if neither --dry-run nor --execute is specified."),
    Opt("delete-offsets", "Delete offsets of share group. Supports one share group at a time, and multiple "
        "topics."),
    _SHARED["dry-run"], _SHARED["execute"], _SHARED["export"],
    *(_SHARED[name] for name in ("to-offset", "from-file", "to-datetime", "to-earliest", "to-latest",
                                 "to-current")),
    Opt("members", "Describe members of the group. This option may be used with the --describe option only.",
        available_if=("describe",)),
    Opt("offsets", "Describe the group and list all topic partitions in the group along with their offset "
        "information. This is the default sub-action and may be used with the --describe option only.",
        available_if=("describe",)),
    Opt("state", "When specified with --describe, it displays the state of the group." + NL + "When specified "
        "with --list, it displays the state of all groups. It can also be used to list groups with specific "
        "states. Valid values are Empty, Stable and Dead.", OPTIONAL, available_if=("describe", "list")),
    Opt("verbose", "Provide additional information, if any, when describing the group. This option may be used "
        "with the --describe option only.", available_if=("describe",)),
    HELP, VERSION,
]

ACTIONS = ("list", "describe", "delete", "reset-offsets", "delete-offsets")
SCOPES = ("all-topics", "from-file", "topic")                       # allResetOffsetsScopeOpts, sorted
SCENARIOS = ("from-file", "to-current", "to-datetime", "to-earliest", "to-latest", "to-offset")


def _names(names) -> str:
    return ", ".join(f"[{n}]" for n in names)


def read(args: list[str]) -> groups.GroupsRequest:
    """ShareGroupCommandOptions.checkArgs, then the action count ShareGroupCommand checks."""
    parsed = start(OPTIONS, args, "This tool helps to list, describe, delete and manage the offsets of "
                                  "share groups.")
    has = parsed.has
    if not has("bootstrap-server"):
        raise Usage('Missing required argument "[bootstrap-server]"')
    if has("describe"):
        if not has("group") and not has("all-groups"):
            raise Usage("Option [describe] takes one of these options: [all-groups], [group]")
        if sum(map(has, ("members", "offsets", "state"))) > 1:
            raise Usage("Option [describe] takes at most one of these options: [members], [offsets], [state]")
        if has("state") and parsed.raw("state") is not None:
            raise Usage("Option [describe] does not take a value for [state]")
    if has("delete"):
        if not has("group") and not has("all-groups"):
            raise Usage("Option [delete] takes the options [group] or [all-groups].")
        if has("all-groups") and has("group"):
            raise Usage("Option [delete] takes either [group] or [all-groups], not both.")
        if has("all-topics") or has("topic"):
            raise Usage("Option [delete] does not take the options [topic] or [all-topics].")
    if has("delete-offsets") and (not has("group") or not has("topic")):
        raise Usage("Option [delete-offsets] takes the following options: [group], [topic]")
    if has("reset-offsets"):
        if has("dry-run") and has("execute"):
            raise Usage("Option [reset-offsets] only accepts one of [execute] and [dry-run]")
        if not has("dry-run") and not has("execute"):
            raise Usage("Option [reset-offsets] takes the option: [execute] or [dry-run]")
        if not has("group"):
            raise Usage("Option [reset-offsets] takes the option: [group]")
        if not any(map(has, SCOPES)):
            raise Usage(f"Option [reset-offsets] takes one of these options: {_names(SCOPES)}")
        for scope in ("topic", "all-topics", "from-file"):
            check_invalid(parsed, scope, [s for s in SCOPES if s != scope])
        if not any(map(has, SCENARIOS)):
            raise Usage(f"Option [reset-offsets] takes one of these options: {_names(SCENARIOS)}")
        for scenario in ("to-offset", "to-datetime", "to-earliest", "to-latest", "to-current", "from-file"):
            check_invalid(parsed, scenario, [s for s in SCENARIOS if s != scenario])
    check_invalid(parsed, "group", ["all-groups"])
    check_invalid(parsed, "group", ["list"])
    check_invalid(parsed, "topic", ["list", "describe", "delete"])
    if sum(map(has, ACTIONS)) != 1:
        raise Usage("Command must include exactly one action: --list, --describe, --delete, --reset-offsets, "
                    "--delete-offsets.")
    return groups.GroupsRequest(next(a for a in ACTIONS if has(a)), parsed, [])

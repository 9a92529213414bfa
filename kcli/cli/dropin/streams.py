"""kafka-streams-groups' command line (Apache Kafka 4.4's StreamsGroupCommandOptions, with
KIP-1282's ``--to-start-time``): its options, help texts and checks in the tool's order. Pure.
The reset scenarios' options are kafka-consumer-groups' (``groups.OPTIONS``), the same words."""

from __future__ import annotations

from kcli.cli.dropin import groups
from kcli.cli.dropin.common import HELP, VERSION, Usage, check_invalid, start
from kcli.cli.dropin.jopt import OPTIONAL, REQUIRED, Opt

_SHARED = {o.name: o for o in groups.OPTIONS}
NL = "\n"
OPTIONS = [
    Opt("bootstrap-server", "REQUIRED: The server(s) to connect to.", REQUIRED, describe="server to connect to"),
    Opt("group", "The streams group id.", REQUIRED, describe="group id"),
    Opt("input-topic", "The input topic whose committed offset should be deleted or reset. In --reset-offsets "
        "case, partitions can be specified using this format: `topic:0,1,2`, where 0,1,2 are the partitions to "
        "be included. Multiple input topics can be specified. Supported operations: delete-offsets, "
        "reset-offsets.", REQUIRED, describe="topic"),
    Opt("all-input-topics", "Consider all input topics used in the topology of the group. Supported operations: "
        "delete-offsets, reset-offsets."),
    Opt("list", "List all streams groups."),
    Opt("describe", "Describe streams group and list offset lag related to given group."),
    Opt("all-groups", "Apply to all streams groups."),
    Opt("delete", "Delete topic partition offsets and ownership information for one or more streams groups."),
    Opt("delete-offsets", "Delete offsets of streams group. Supports one streams group at a time, and multiple "
        "topics."),
    Opt("timeout", "The timeout that can be set for some use cases. For example, it can be used when describing "
        "the group to specify the maximum amount of time in milliseconds to wait before the group stabilizes.",
        REQUIRED, "Long", "timeout (ms)", default="30000"),
    Opt("command-config", "Property file containing configs to be passed to Admin Client.", REQUIRED,
        describe="command config property file"),
    Opt("state", "When specified with --list, it displays the state of all groups. It can also be used to list "
        "groups with specific states. Valid values are Empty, NotReady, Stable, Assigning, Reconciling, and Dead.",
        OPTIONAL, available_if=("list", "describe")),
    Opt("members", "Describe members of the group. This option may be used with the --describe option only.",
        available_if=("describe",)),
    Opt("offsets", "Describe the group and list all topic partitions in the group along with their offset "
        "information.This is the default sub-action and may be used with the --describe option only.",
        available_if=("describe",)),
    Opt("topology", "Describe the topology of the streams group, as recorded by the broker's topology description "
        "plugin. This option may be used with the '--describe' option only.", available_if=("describe",)),
    Opt("reset-offsets", "Reset offsets of streams group. The instances should be inactive." + NL
        + "Has 2 execution options: --dry-run to plan which offsets to reset, and --execute to update the "
        "offsets." + NL + "If you use --execute, all internal topics linked to the group will also be deleted."
        + NL + "Additionally, the --export option can be used to generate the offsets in CSV format for export "
        "to a file." + NL + "You must choose one of the following reset specifications: --to-datetime, "
        "--by-duration, --to-earliest, --to-latest, --shift-by, --from-file, --to-current, --to-offset." + NL
        + "To define the scope, use --all-input-topics or --input-topic. The scope must be specified unless you "
        "use --from-file." + NL + "Fails if neither --dry-run nor --execute is specified."),
    *(_SHARED[name] for name in ("to-offset", "from-file", "to-datetime", "by-duration", "to-earliest",
                                 "to-latest", "to-current", "shift-by", "to-start-time")),
    Opt("delete-internal-topic", "Delete specified internal topic of the streams group. Supported operation: "
        "reset-offsets.This option is applicable only when --execute is used.", REQUIRED),
    Opt("delete-all-internal-topics", "Delete all internal topics linked to the streams group. Supported "
        "operations: reset-offsets, delete.With reset-offsets, this option is applicable only when --execute "
        "is used."),
    Opt("verbose", "Use with --describe --state to show group epoch and target assignment epoch.\nUse with "
        "--describe --members to show for each member the member epoch, target assignment epoch, current "
        "assignment, target assignment, and whether member is still using the classic rebalance protocol.\nUse "
        "with --describe --offsets and --describe to show leader epochs for each partition.",
        available_if=("describe",)),
    Opt("dry-run", "Only show results without executing changes on streams group. Supported operation: "
        "reset-offsets."),
    _SHARED["execute"], _SHARED["export"],
    HELP, VERSION,
]

ACTIONS = ("list", "describe", "reset-offsets", "delete", "delete-offsets")
SCENARIOS = groups.SCENARIOS
GROUP_SCOPE = "[all-groups], [group]"


def read(args: list[str]) -> groups.GroupsRequest:
    """StreamsGroupCommandOptions.checkArgs, then the action count StreamsGroupCommand checks."""
    parsed = start(OPTIONS, args, "This tool helps to list, describe, delete and manage the offsets of "
                                  "streams groups.")
    has = parsed.has
    if not has("bootstrap-server"):
        raise Usage('Missing required argument "[bootstrap-server]"')
    if has("describe"):
        if not has("group") and not has("all-groups"):
            raise Usage(f"Option [describe] takes one of these options: {GROUP_SCOPE}")
        if sum(map(has, ("members", "offsets", "state", "topology"))) > 1:
            raise Usage("Option [describe] takes at most one of these options: [members], [offsets], [state], "
                        "[topology]")
        if has("state") and parsed.raw("state") is not None:
            raise Usage("Option [describe] does not take a value for [state]")
    if has("delete"):
        if not has("group") and not has("all-groups"):
            raise Usage(f"Option [delete] takes one of these options: {GROUP_SCOPE}")
        if has("input-topic") or has("all-input-topics"):
            raise Usage("Kafka Console does not support topic-specific offset deletion from a streams group.")
    if has("delete-offsets"):
        if not (has("input-topic") or has("all-input-topics")) or not has("group"):
            raise Usage("Option [delete-offsets] takes the [group] and one of these options: [all-input-topics], "
                        "[input-topic]")
        if len(parsed.given["group"]) > 1:
            raise Usage(f"Option [delete-offsets] supports only one [group] at a time, but found: "
                        f"[{', '.join(parsed.texts('group'))}]")
    if has("reset-offsets"):
        if has("dry-run") and has("execute"):
            raise Usage("Option [reset-offsets] only accepts one of [execute] and [dry-run]")
        if not has("dry-run") and not has("execute"):
            raise Usage("Option [reset-offsets] takes the option: [execute] or [dry-run]")
        if not has("group") and not has("all-groups"):
            raise Usage(f"Option [reset-offsets] takes one of these options: {GROUP_SCOPE}")
        for scenario in SCENARIOS:
            check_invalid(parsed, scenario, [s for s in SCENARIOS if s != scenario])
    if has("delete-all-internal-topics"):
        if not has("reset-offsets") and not has("delete"):
            raise Usage("Option [delete-all-internal-topics] takes one of these options: [delete], [reset-offsets]")
        if has("reset-offsets") and not has("execute"):
            raise Usage("Option [delete-all-internal-topics] takes [execute] when [reset-offsets] is used.")
    elif has("delete-internal-topic") and not (has("reset-offsets") and has("execute")):
        raise Usage("Option [delete-internal-topic] takes [reset-offsets] when [execute] is used.")
    if (has("dry-run") or has("execute")) and not has("reset-offsets"):
        raise Usage("Only Option [reset-offsets] accepts [execute] or [dry-run]")
    check_invalid(parsed, "list", ["members", "offsets", "topology"])
    check_invalid(parsed, "group", ["all-groups"])
    check_invalid(parsed, "group", ["list"])
    check_invalid(parsed, "input-topic", ["list", "describe", "delete"])
    if sum(map(has, ACTIONS)) != 1:
        raise Usage("Command must include exactly one action: --list, --describe, --delete, --reset-offsets, "
                    "or --delete-offsets.")
    return groups.GroupsRequest(next(a for a in ACTIONS if has(a)), parsed, [])

"""kafka-consumer-groups' command line (Apache Kafka 4.4's ConsumerGroupCommandOptions, with
KIP-1282's ``--to-start-time``): its options, help texts and checks in the tool's order. Pure."""

from __future__ import annotations

from kcli.cli.dropin import jopt
from kcli.cli.dropin.common import HELP, VERSION, Usage, check_invalid, start
from kcli.cli.dropin.jopt import OPTIONAL, REQUIRED, Opt
from kcli.datatypes import datatype

_EX = "Example: --bootstrap-server localhost:9092 "
OPTIONS = [
    Opt("bootstrap-server", "The server(s) to connect to. REQUIRED for all options except for "
        "--validate-regex.", REQUIRED, describe="server to connect to"),
    Opt("group", "The consumer group id.", REQUIRED, describe="group id"),
    Opt("topic", "The topic whose offset information should be deleted or reset. In `reset-offsets` case, "
        "partitions can be specified using this format: `topic:0,1,2`, where 0,1,2 are the partitions to "
        "be included. Reset-offsets also supports multiple topics.", REQUIRED, describe="topic"),
    Opt("all-topics", "Apply to all topics."),
    Opt("list", "List all consumer groups."),
    Opt("describe", "Describe consumer group and list offset lag (number of messages not yet processed) "
        "related to given group."),
    Opt("all-groups", "Apply to all consumer groups."),
    Opt("delete", "Delete topic partition offsets and ownership information for one or more consumer "
        "groups."),
    Opt("timeout", "The timeout that can be set for some use cases. For example, it can be used when "
        "describing the group to specify the maximum amount of time in milliseconds to wait before the "
        "group stabilizes (when the group is just created, or is going through some changes).", REQUIRED,
        "Long", "timeout (ms)", default="30000"),
    Opt("command-config", "Property file containing configs to be passed to Admin Client and Consumer.",
        REQUIRED, describe="command config property file"),
    Opt("reset-offsets", "Reset offsets of consumer group. Supports one consumer group at a time, and "
        "instances should be inactive\nHas 2 execution options: --dry-run (the default) to plan which "
        "offsets to reset, and --execute to update the offsets. \nAdditionally, the --export option can be "
        "used to generate the offsets in CSV format for export to a file.\nYou must choose one of the "
        "following reset specifications: --to-datetime, --by-duration, --to-earliest, --to-latest, "
        "--shift-by, --from-file, --to-current, --to-offset.\nTo define the scope, use --all-topics or "
        "--topic. The scope must be specified unless you use --from-file."),
    Opt("delete-offsets", "Delete offsets of consumer group. Supports one consumer group at a time, and "
        "multiple topics."),
    Opt("dry-run", "Output offset reset information without executing the operation. Supported operation: "
        "reset-offsets."),
    Opt("execute", "Execute the offset reset operation. Supported operation: reset-offsets."),
    Opt("export", "Generate offset reset information in CSV format for export to a file. Supported "
        "operation: reset-offsets."),
    Opt("to-offset", "Reset offsets to a specific offset.", REQUIRED, "Long", "offset"),
    Opt("from-file", "Reset offsets to values defined in CSV file.", REQUIRED, describe="path to CSV file"),
    Opt("to-datetime", "Reset offsets to offset from datetime. Format: 'YYYY-MM-DDThh:mm:ss.sss'", REQUIRED,
        describe="datetime"),
    Opt("by-duration", "Reset offsets by duration from current timestamp. Format: 'PnDTnHnMnS'",
        REQUIRED, describe="duration"),
    Opt("to-earliest", "Reset offsets to earliest offset."),
    Opt("to-latest", "Reset offsets to latest offset."),
    Opt("to-current", "Reset offsets to current offset."),
    Opt("shift-by", "Reset offsets shifting current offset by 'n', where 'n' can be positive or negative.",
        REQUIRED, "Long", "number-of-offsets"),
    # KIP-1282
    Opt("to-start-time", "Reset offsets to the group's creation time: the first offset at or after the "
        "time the group was created (KIP-1282)."),
    Opt("members", "Describe members of the group. This option may be used with the --describe option "
        "only.\n" + _EX + "--describe --group group1 --members", available_if=("describe",)),
    Opt("verbose", "Provide additional information, if any, when describing the group. This option may be "
        "used with the --describe option only.", available_if=("describe",)),
    Opt("offsets", "Describe the group and list all topic partitions in the group along with their offset "
        "lag. This is the default sub-action of and may be used with the --describe option only.\n" + _EX
        + "--describe --group group1 --offsets", available_if=("describe",)),
    Opt("state", "When specified with --describe, it displays the state of the group.\n" + _EX
        + "--describe --group group1 --state\nWhen specified with --list, it displays the states of the "
        "groups. It can also be used to list groups with specific states.\n" + _EX
        + "--list --state stable,empty\nThis option may be used with --describe and --list options only.",
        OPTIONAL, available_if=("describe", "list")),
    Opt("type", "When specified with --list, it displays the types of the groups. It can also be used to "
        "list groups with specific types.\n" + _EX + "--list --type classic,consumer\nThis option may be "
        "used with the --list option only.", OPTIONAL, available_if=("list",)),
    Opt("validate-regex", "Validate the syntax of the regular expression according to the RE2 format.",
        REQUIRED, describe="regex"),
    HELP, VERSION,
]

ACTIONS = ("list", "describe", "delete", "reset-offsets", "delete-offsets", "validate-regex")
SCENARIOS = ("to-offset", "shift-by", "to-datetime", "by-duration", "to-earliest", "to-latest",
             "to-current", "from-file", "to-start-time")
NO_EXECUTE_WARNING = (
    "WARN: No action will be performed as the --execute option is missing. In version 5.0, this command "
    "will require either --dry-run or --execute to be specified. You should add the --dry-run option "
    "explicitly if you are scripting this command and want to keep the current default behavior without "
    "prompting.")


@datatype
class GroupsRequest:
    action: str
    parsed: jopt.Parsed
    notices: list[tuple[str, str]]


def read(args: list[str]) -> GroupsRequest:
    """ConsumerGroupCommandOptions.checkArgs, then the action count ConsumerGroupCommand checks."""
    parsed = start(OPTIONS, args, "This tool helps to list, describe, delete and manage the offsets of "
                                  "consumer groups.")
    has = parsed.has
    scope = "[group], [all-groups]"
    if not has("validate-regex") and not has("bootstrap-server"):
        raise Usage('Missing required argument "[bootstrap-server]"')
    if has("describe"):
        if not has("group") and not has("all-groups"):
            raise Usage(f"Option [describe] takes one of these options: {scope}")
        if sum(map(has, ("members", "offsets", "state"))) > 1:
            raise Usage("Option [describe] takes at most one of these options: [members], [offsets], [state]")
        if has("state") and parsed.raw("state") is not None:
            raise Usage("Option [describe] does not take a value for [state]")
    if has("delete"):
        if not has("group") and not has("all-groups"):
            raise Usage(f"Option [delete] takes one of these options: {scope}")
        if has("topic"):
            raise Usage("The consumer does not support topic-specific offset deletion from a consumer group.")
    if has("delete-offsets") and (not has("group") or not has("topic")):
        raise Usage("Option [delete-offsets] takes the following options: [group], [topic]")
    notices = []
    if has("reset-offsets"):
        if has("dry-run") and has("execute"):
            raise Usage("Option [reset-offsets] only accepts one of [execute] and [dry-run]")
        if not has("dry-run") and not has("execute"):
            notices.append(("stderr", NO_EXECUTE_WARNING))
        if not has("group") and not has("all-groups"):
            raise Usage(f"Option [reset-offsets] takes one of these options: {scope}")
        for scenario in SCENARIOS:
            check_invalid(parsed, scenario, [s for s in SCENARIOS if s != scenario])
    check_invalid(parsed, "group", ["all-groups"])
    check_invalid(parsed, "group", ["list"])
    check_invalid(parsed, "topic", ["list", "describe"])
    if sum(map(has, ACTIONS)) != 1:
        raise Usage("Command must include exactly one action: "
                    + ", ".join(f"--{a}" for a in ACTIONS))
    return GroupsRequest(next(a for a in ACTIONS if has(a)), parsed, notices)

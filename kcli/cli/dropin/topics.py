"""kafka-topics' command line (Apache Kafka 4.4's TopicCommand): its options, help texts and
checks in the tool's order, read into a ``TopicsRequest``. Pure."""

from __future__ import annotations

from kcli.cli.dropin import jopt
from kcli.cli.dropin.common import HELP, VERSION, Usage, check_invalid, start
from kcli.cli.dropin.jopt import REQUIRED, Opt
from kcli.cli.dropin.confignames import CONFIG_NAMES
from kcli.datatypes import datatype

_TO_CONFIGS = " (To alter topic configurations, the kafka-configs tool can be used.)"

OPTIONS = [
    Opt("bootstrap-server", "REQUIRED: The Kafka server to connect to.", REQUIRED, describe="server to connect to"),
    Opt("command-config", "Property file containing configs to be passed to Admin Client.", REQUIRED,
        describe="command config property file"),
    Opt("list", "List all available topics."),
    Opt("create", "Create a new topic."),
    Opt("delete", "Delete a topic."),
    Opt("alter", "Alter the number of partitions and replica assignment." + _TO_CONFIGS),
    Opt("describe", "List details for the given topics."),
    Opt("topic", "The topic to create, alter, describe or delete. It also accepts a regular expression, "
        "except for --create option.", REQUIRED, describe="topic"),
    Opt("topic-id", "The topic-id to describe.", REQUIRED, describe="topic-id"),
    Opt("config", "A topic configuration override for the topic being created. The following is a list of "
        "valid configurations: \n" + "\n".join("\t" + n for n in CONFIG_NAMES["topics"]) + "\n"
        "See the Kafka documentation for full details on the topic configs. It is supported only in "
        "combination with --create." + _TO_CONFIGS, REQUIRED, describe="name=value"),
    Opt("delete-config", "This option is no longer supported and has been deprecated since 4.0", REQUIRED,
        describe="name"),
    Opt("partitions", "The number of partitions for the topic being created or altered. If not supplied with "
        "--create, the topic uses the cluster default. (WARNING: If partitions are increased for a topic that "
        "has a key, the partition logic or ordering of the messages will be affected).", REQUIRED, "Integer",
        "# of partitions"),
    Opt("replication-factor", "The replication factor for each partition in the topic being created. If not "
        "supplied, the topic uses the cluster default.", REQUIRED, "Integer", "replication factor"),
    Opt("replica-assignment", "A list of manual partition-to-broker assignments for the topic being created "
        "or altered.", REQUIRED, describe="broker_id_for_part1_replica1 : broker_id_for_part1_replica2 , "
        "broker_id_for_part2_replica1 : broker_id_for_part2_replica2 , ..."),
    Opt("under-replicated-partitions", "If set when describing topics, only show under-replicated partitions."),
    Opt("unavailable-partitions", "If set when describing topics, only show partitions whose leader is not "
        "available."),
    Opt("under-min-isr-partitions", "If set when describing topics, only show partitions whose isr count is "
        "less than the configured minimum."),
    Opt("at-min-isr-partitions", "If set when describing topics, only show partitions whose isr count is "
        "equal to the configured minimum."),
    Opt("topics-with-overrides", "If set when describing topics, only show topics that have overridden "
        "configs."),
    Opt("if-exists", "If set when altering or deleting or describing topics, the action will only execute "
        "if the topic exists."),
    Opt("if-not-exists", "If set when creating topics, the create request will not fail if the topic "
        "already exists, but the request will still be sent."),
    Opt("exclude-internal", "Exclude internal topics when listing or describing topics. By default, the "
        "internal topics are included."),
    Opt("partition-size-limit-per-response", "The maximum partition size to be included in one "
        "DescribeTopicPartitions response.", REQUIRED, "Integer", "maximum number of partitions per response"),
    HELP, VERSION,
]

ACTIONS = ("create", "list", "alter", "describe", "delete")
# The Java tool's sets (Set.of, whose order changes from one JVM to the next): written in one order.
TOPIC_LEVEL = ("alter", "create", "describe", "list", "delete")
REPORTS = ("under-replicated-partitions", "under-min-isr-partitions", "at-min-isr-partitions",
           "unavailable-partitions")
DELETE_CONFIG_NOTICE = ("delete-config option is no longer supported and deprecated since version 4.0. "
                        "The config will be fully removed in future releases.")
BOTH_IDS_NOTICE = ("Only topic id will be used when both --topic and --topic-id are specified and topicId "
                   "is not Uuid.ZERO_UUID")


@datatype
class TopicsRequest:
    action: str
    parsed: jopt.Parsed
    bootstrap: str
    notices: list[tuple[str, str]]          # (stream, line) printed before anything is sent


def _except(*keep: str) -> list[str]:
    return [o for o in TOPIC_LEVEL if o not in keep]


def read(args: list[str]) -> TopicsRequest:
    """TopicCommandOptions: parse, help, exactly one action, the required and invalid options."""
    parsed = start(OPTIONS, args, "This tool helps to create, delete, describe, or change a topic.",
                   no_args_text="Create, delete, describe, or change a topic.")
    if sum(parsed.has(a) for a in ACTIONS) != 1:
        raise Usage("Command must include exactly one action: --list, --describe, --create, --alter or --delete")
    notices = []
    if parsed.has("delete-config"):
        notices.append(("stderr", DELETE_CONFIG_NOTICE))
    if not parsed.has("bootstrap-server"):
        raise Usage("--bootstrap-server must be specified")
    if parsed.has("describe") and parsed.has("if-exists"):
        if not parsed.has("topic") and not parsed.has("topic-id"):
            raise Usage("--topic or --topic-id is required to describe a topic")
        if parsed.has("topic") and parsed.has("topic-id"):
            notices.append(("stdout", BOTH_IDS_NOTICE))
    if not parsed.has("list") and not parsed.has("describe") and not parsed.has("topic"):
        raise Usage('Missing required argument "[topic]"')
    if parsed.has("alter"):
        if parsed.has("config"):
            raise Usage('Option combination "[[bootstrap-server], [config]]" can\'t be used with option '
                        '"[alter]"' + _TO_CONFIGS)
        if not parsed.has("partitions"):
            raise Usage('Missing required argument "[partitions]"')
    check_invalid(parsed, "config", _except("alter", "create"))
    check_invalid(parsed, "partitions", _except("alter", "create"))
    check_invalid(parsed, "replication-factor", _except("create"))
    check_invalid(parsed, "replica-assignment", _except("alter", "create"))
    if parsed.has("create"):
        check_invalid(parsed, "replica-assignment", ["partitions", "replication-factor"])
    for report in REPORTS:
        check_invalid(parsed, report, _except("describe", report) + ["topics-with-overrides"])
    check_invalid(parsed, "topics-with-overrides", _except("describe") + list(REPORTS))
    check_invalid(parsed, "if-exists", _except("alter", "delete", "describe"))
    check_invalid(parsed, "if-not-exists", _except("create"))
    check_invalid(parsed, "exclude-internal", _except("list", "describe"))
    action = next(a for a in ACTIONS if parsed.has(a))
    try:
        bootstrap = parsed.value("bootstrap-server")
    except jopt.JoptError as exc:
        raise Usage(str(exc)) from None
    return TopicsRequest(action, parsed, bootstrap, notices)

"""kafka-leader-election's command line (Apache Kafka 4.4's LeaderElectionCommand): its options,
help texts and checks in the tool's order, and the --path-to-json-file grammar. Pure."""

from __future__ import annotations

from kcli.cli.dropin import jopt
from kcli.cli.dropin.common import HELP, VERSION, Usage, start
from kcli.cli.dropin.jopt import FLAG, REQUIRED, Opt
from kcli.datatypes import datatype
from kcli.inputs import printable

USAGE_TEXT = ("This tool attempts to elect a new leader for a set of topic partitions. The type of elections "
              "supported are preferred replicas and unclean replicas.")
ELECTION_TYPES = ("PREFERRED", "UNCLEAN")
OPTIONS = [
    Opt("bootstrap-server", "A hostname and port for the broker to connect to, in the form host:port. Multiple "
        "comma separated URLs can be given. REQUIRED.", REQUIRED, describe="host:port"),
    Opt("admin.config", "(DEPRECATED) Configuration properties files to pass to the admin client. This option "
        "will be removed in a future version. Use --command-config instead.", REQUIRED, describe="config file"),
    Opt("command-config", "Config properties file to pass to the admin client.", REQUIRED, describe="Config file"),
    Opt("path-to-json-file", "The JSON file with the list  of partition for which leader elections should be "
        "performed. This is an example format. \n{\"partitions\":\n\t[{\"topic\": \"foo\", \"partition\": 1},\n\t "
        "{\"topic\": \"foobar\", \"partition\": 2}]\n}\nNot allowed if --all-topic-partitions or --topic flags are "
        "specified.", REQUIRED, describe="Path to JSON file"),
    Opt("topic", "Name of topic for which to perform an election. Not allowed if --path-to-json-file or "
        "--all-topic-partitions is specified.", REQUIRED, describe="topic name"),
    Opt("partition", "Partition id for which to perform an election. REQUIRED if --topic is specified.", REQUIRED,
        type="Integer", describe="partition id"),
    Opt("all-topic-partitions", "Perform election on all of the eligible topic partitions based on the type of "
        "election (see the --election-type flag). Not allowed if --topic or --path-to-json-file is specified.",
        FLAG),
    Opt("election-type", "Type of election to attempt. Possible values are \"preferred\" for preferred leader "
        "election or \"unclean\" for unclean leader election. If preferred election is selection, the election "
        "is only performed if the current leader is not the preferred leader for the topic partition. If unclean "
        "election is selected, the election is only performed if there are no leader for the topic partition. "
        "REQUIRED.", REQUIRED, type="[PREFERRED,UNCLEAN]", describe="election type"),
    HELP, VERSION,
]


@datatype
class ElectionRequest:
    parsed: jopt.Parsed
    bootstrap: str
    unclean: bool
    partitions: list | None         # (topic, partition)s, or None: every partition
    json_file: str | None


def read(args: list[str]) -> ElectionRequest:
    parsed = start(OPTIONS, args, USAGE_TEXT)
    has = parsed.has
    try:
        kind = parsed.value("election-type")
        partition = parsed.value("partition")
        bootstrap = parsed.value("bootstrap-server")
        topic = parsed.value("topic")
        json_file = parsed.value("path-to-json-file")
        parsed.value("command-config")
        parsed.value("admin.config")
    except jopt.JoptError as exc:
        raise Usage(str(exc)) from None
    if kind is not None and kind.upper() not in ELECTION_TYPES:         # jopt's EnumConverter
        raise Usage(f"Cannot parse argument '{printable(kind)}' of option election-type")
    missing = [n for n in ("bootstrap-server", "election-type") if not has(n)]
    if missing:
        raise Usage(f"Missing required option(s): {', '.join(missing)}")
    if has("admin.config") and has("command-config"):
        raise Usage('Option "[admin.config]" can\'t be used with option "[command-config]"')
    if sum(map(has, ("topic", "all-topic-partitions", "path-to-json-file"))) != 1:
        raise Usage("One and only one of the following options is required: topic, all-topic-partitions, "
                    "path-to-json-file")
    if has("topic") and not has("partition"):
        raise Usage("Missing required option(s): partition")
    if not has("topic") and has("partition"):
        raise Usage("Option partition is only allowed if topic is used")
    partitions = [(topic, partition)] if has("topic") else None
    return ElectionRequest(parsed, bootstrap, kind.upper() == "UNCLEAN", partitions, json_file)


def parse_election_file(text: str) -> list[tuple[str, int]]:
    """LeaderElectionCommand.parseReplicaElectionData: the file's partitions; Usage in its words."""
    import json

    try:
        doc = json.loads(text)
    except ValueError as exc:
        raise Usage(f"Replica election data is not JSON: {exc}") from None
    if doc is None:
        raise Usage("Replica election data is empty")
    if not isinstance(doc, dict) or "partitions" not in doc:
        raise Usage('Replica election data is missing "partitions" field')
    entries = doc["partitions"]
    if not isinstance(entries, list):
        raise Usage('Replica election data\'s "partitions" is not an array')
    out = []
    for entry in entries:
        topic = entry.get("topic") if isinstance(entry, dict) else None
        partition = entry.get("partition") if isinstance(entry, dict) else None
        if not isinstance(topic, str) or not isinstance(partition, int) or isinstance(partition, bool):
            raise Usage(f"Replica election data has a partition without a \"topic\" string and a \"partition\" "
                        f"number: {json.dumps(entry)}")
        out.append((topic, partition))
    duplicates = sorted({tp for tp in out if out.count(tp) > 1})
    if duplicates:
        from kcli.javaorder import topic_partitions

        shown = ", ".join(f"{t}-{p}" for t, p in topic_partitions(duplicates))
        raise Usage(f"Replica election data contains duplicate partitions: [{shown}]")
    return out

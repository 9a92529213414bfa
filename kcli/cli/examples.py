"""Each command's examples, shown at the end of its ``--help`` and in its man page's EXAMPLES
(``scripts/gen_docs.py``): (command line, what it does). They are real: tests/cli/test_help.py
runs every one against the embedded broker (the commands that need a cluster), or parses it."""

from __future__ import annotations

EXAMPLES: dict[str, list[tuple[str, str]]] = {
    "": [
        ("kcli broker start", "an embedded KIP broker on 127.0.0.1:9092 to try kcli against"),
        ("kcli describe groups billing --state --verbose -b kafka-1:9092",
         "a group's state and creation time (KIP-1282)"),
        ("kcli reset-offsets --group billing --topic orders --to-start-time",
         "plan a reset to the group's creation time (a dry run)"),
    ],
    "list topics": [
        ("kcli list topics", "every topic name"),
        ("kcli list topics 'orders.*' --exclude-internal", "the names matching a regex"),
    ],
    "describe topics": [
        ("kcli describe topics orders", "a summary and every partition, with its creation time (KIP-1327)"),
        ("kcli describe topics --topics-with-overrides", "only the topics with config overrides"),
        ("kcli describe topics --under-replicated-partitions -o plain", "kafka-topics' layout, for scripts"),
    ],
    "create topic": [
        ("kcli create topic orders --partitions 6 --replication-factor 3", "a topic with 6 partitions"),
        ("kcli create topic audit-log --config cleanup.policy=compact --if-not-exists",
         "a compacted topic, unless it exists"),
    ],
    "alter topics": [
        ("kcli alter topics orders --partitions 12", "grow a topic to 12 partitions"),
    ],
    "delete topics": [
        ("kcli delete topics 'tmp-.*'", "list the topics whose names start with tmp- (a dry run when several match)"),
        ("kcli delete topics 'tmp-.*' --execute", "delete them all"),
        ("kcli delete topics --topic old-orders --if-exists", "one topic, if it exists"),
    ],
    "describe cluster": [
        ("kcli describe cluster", "the cluster id, the controller and the brokers, fenced ones too"),
        ("kcli describe cluster -o json", "the same as a JSON document"),
        ("kcli describe cluster --api-versions", "each broker's API versions beside the KIP versions kcli needs"),
    ],
    "describe log-dirs": [
        ("kcli describe log-dirs --topic orders", "the size of each replica of orders, per broker"),
        ("kcli describe log-dirs --broker 1 -o json", "every replica on broker 1, sizes in bytes"),
    ],
    "describe configs": [
        ("kcli describe configs --topic orders", "a topic's overrides and its KIP-937 timestamp bounds"),
        ("kcli describe configs --broker 1 --all", "every config of broker 1"),
    ],
    "alter configs": [
        ("kcli alter configs --topic orders --set message.timestamp.after.max.ms=3600000",
         "refuse records dated over an hour ahead (KIP-937)"),
        ("kcli alter configs --topic orders --delete retention.ms", "back to the default retention"),
    ],
    "list groups": [
        ("kcli list groups --state", "every group with its state"),
        ("kcli list groups --state empty --type consumer", "the empty groups of the consumer protocol"),
    ],
    "describe groups": [
        ("kcli describe groups billing", "committed offsets, log end and lag per partition"),
        ("kcli describe groups billing --state --verbose", "state, epochs and the creation time (KIP-1282)"),
        ("kcli describe groups --all-groups --members", "every group's members and assignments"),
    ],
    "delete groups": [
        ("kcli delete groups billing-old", "delete an inactive group"),
    ],
    "reset-offsets": [
        ("kcli reset-offsets --group billing --topic orders --to-start-time",
         "plan a reset to the group's creation time (KIP-1282): a dry run"),
        ("kcli reset-offsets --group billing --topic orders --to-latest --max-age 1h",
         "latest, but earliest for partitions younger than 1 h (KIP-1327)"),
        ("kcli reset-offsets --group billing --topic orders:0,1 --to-datetime 2025-01-15T10:30:00Z --execute",
         "commit the reset, after writing a rollback file"),
    ],
    "delete-records": [
        ("kcli delete-records -t orders:0=1 -t orders:1=-1",
         "what would go below offset 1 of partition 0, and all of 1: a dry run, naming unread groups"),
        ("kcli delete-records --before 2025-01-15T00:00:00Z -t orders --execute", "delete the older records"),
        ("kcli delete-records -t orders:2=-1 --execute --allow-loss", "all of partition 2, read or not"),
    ],
    "delete-offsets": [
        ("kcli delete-offsets --group billing --topic orders:0,1", "forget the group's offsets of two partitions"),
    ],
    "list-offsets": [
        ("kcli list-offsets --topic orders", "the latest offset of every partition"),
        ("kcli list-offsets --topic orders --max-timestamp", "where the highest timestamp is (KIP-734)"),
        ("kcli list-offsets --topic orders:0 --time 2025-01-15T10:30:00Z", "the first offset at or after a time"),
    ],
    "audit timestamps": [
        ("kcli audit timestamps --topic orders", "timestamps, bounds and order of every record, on Spark"),
        ("kcli audit timestamps --topic orders --group billing",
         "what a reset to the group's creation time would replay or skip"),
        ("kcli audit timestamps --topic orders --master spark://spark-master:7077", "on a Spark cluster"),
    ],
    "broker start": [
        ("kcli broker start", "one node on 127.0.0.1:9092, in memory"),
        ("kcli broker start --listen 127.0.0.1:19092 --nodes 3 --data-dir ./kafka-data",
         "three nodes on ports 19092-19094 that keep their data"),
        ("kcli broker start --pose-as 4.1", "a broker without the KIPs, to rehearse the degraded paths"),
    ],
    "demo": [
        ("kcli demo", "the partition-expansion story on a 3-node embedded broker"),
    ],
    "check expansions": [
        ("kcli check expansions", "partitions created in the last 24h that a group reads late or not at all"),
        ("kcli check expansions --within 1h -g billing -o json",
         "one group, the last hour, for a script (exit 4: found)"),
    ],
    "check broker": [
        ("kcli check broker", "every rule: PASS, FAIL or UNSUPPORTED, with the evidence (exit 1: a rule failed)"),
        ("kcli check broker --dry-run", "what the check would create and delete; nothing is created"),
    ],
    "lag show": [
        ("kcli lag show", "every group's lag in offsets and its largest lag in time"),
        ("kcli lag show billing --by partition --sort time-lag", "one group's partitions, the longest behind first"),
        ("kcli lag show --by topic --min-time-lag 5m -o json",
         "the groups' topics 5 minutes or more behind, for a script"),
    ],
    "reassign partitions": [
        ("kcli reassign partitions --generate --topics orders --broker-list 1,2,3",
         "a balanced plan for the topic's partitions over brokers 1 to 3; nothing moves"),
        ("kcli reassign partitions --execute --reassignment-json-file plan.json --throttle 10000000",
         "start the plan at 10 MB/s per replica, the current replicas saved first as a rollback plan"),
        ("kcli reassign partitions --verify --wait --reassignment-json-file plan.json",
         "progress until every move is done, then the throttles removed"),
    ],
    "describe quotas": [
        ("kcli describe quotas", "every user's, client id's and IP's quotas"),
        ("kcli describe quotas --user alice", "the quotas of user alice and of her clients"),
    ],
    "alter quotas": [
        ("kcli alter quotas --user alice --set producer_byte_rate=1048576",
         "check a 1 MiB/s produce quota for alice: the broker validates it, nothing changes"),
        ("kcli alter quotas --user alice --set producer_byte_rate=1048576 --execute", "apply it"),
    ],
    "elect leaders": [
        ("kcli elect leaders --preferred", "the partitions whose preferred replica would lead again: a dry run"),
        ("kcli elect leaders --preferred --topic orders --execute", "elect them, for one topic"),
        ("kcli elect leaders --unclean --topic orders",
         "the replica each leaderless partition would get, and the records an out-of-sync one may lose"),
    ],
    "lag serve": [
        ("kcli lag serve", "exact lag for Prometheus on 127.0.0.1:8000/metrics, collected every 30s"),
        ("kcli lag serve --listen 0.0.0.0:9308 --interval 15s --group 'billing-.*' --exclude-group 'billing-test'",
         "the billing groups, every 15 s, on every interface (group and topic names are then exposed)"),
        ("kcli lag serve --profile prod --topic 'orders|payments' --cluster-name prod",
         "a profile's cluster, two topics, labelled cluster_name=\"prod\""),
    ],
    "kafka-topics": [
        ("kcli kafka-topics --bootstrap-server localhost:9092 --describe --topic orders",
         "kafka-topics' own command line, with CreationTimeMs per partition (KIP-1327)"),
        ("kcli kafka-topics --bootstrap-server localhost:9092 --list --exclude-internal", "every topic name"),
    ],
    "kafka-consumer-groups": [
        ("kcli kafka-consumer-groups --bootstrap-server localhost:9092 --describe --group billing --state --verbose",
         "a group's state with GROUP-CREATION-TIME (KIP-1282)"),
        ("kcli kafka-consumer-groups --bootstrap-server localhost:9092 --reset-offsets --group billing "
         "--topic orders --to-start-time --dry-run", "plan a reset to the group's creation time (KIP-1282)"),
    ],
    "kafka-get-offsets": [
        ("kcli kafka-get-offsets --bootstrap-server localhost:9092 --topic-partitions orders:0-2 --time -3",
         "the max-timestamp offsets of partitions 0 and 1 (KIP-734)"),
    ],
    "kafka-configs": [
        ("kcli kafka-configs --bootstrap-server localhost:9092 --describe --entity-type topics --entity-name orders",
         "a topic's config overrides, as kafka-configs prints them"),
        ("kcli kafka-configs --bootstrap-server localhost:9092 --describe --entity-type users --entity-default",
         "the default quotas of users, as kafka-configs prints them"),
    ],
    "kafka-leader-election": [
        ("kcli kafka-leader-election --bootstrap-server localhost:9092 --election-type preferred "
         "--all-topic-partitions",
         "move every partition's leadership back to its preferred replica"),
    ],
    "kafka-reassign-partitions": [
        ("kcli kafka-reassign-partitions --bootstrap-server localhost:9092 --execute --reassignment-json-file "
         "plan.json --throttle 50000000",
         "start the plan's moves at 50 MB/s (the replicas before them saved as a rollback file first)"),
        ("kcli kafka-reassign-partitions --bootstrap-server localhost:9092 --verify --reassignment-json-file "
         "plan.json",
         "each move's state; the throttles removed once every move is done"),
    ],
    "kafka-delete-records": [
        ("kcli kafka-delete-records --bootstrap-server localhost:9092 --offset-json-file offsets.json",
         'the records below each offset of {"partitions": [{"topic", "partition", "offset"}]}, deleted at once'),
    ],
    "kafka-log-dirs": [
        ("kcli kafka-log-dirs --bootstrap-server localhost:9092 --describe --topic-list payments",
         "each broker's log dirs with the size of each replica of payments, as one JSON line"),
    ],
    "kafka-cluster": [
        ("kcli kafka-cluster list-endpoints --bootstrap-server localhost:9092 --include-fenced-brokers",
         "every broker's id, host, port, rack and whether it is fenced"),
        ("kcli kafka-cluster cluster-id --bootstrap-server localhost:9092", "the cluster's id"),
    ],
    "kafka-features": [
        ("kcli kafka-features --bootstrap-server localhost:9092 describe",
         "each feature's supported range and finalized level"),
        ("kcli kafka-features --bootstrap-server localhost:9092 upgrade --feature transaction.version=2 --dry-run",
         "whether the cluster would take the upgrade, nothing changed"),
    ],
    "kafka-metadata-quorum": [
        ("kcli kafka-metadata-quorum --bootstrap-server localhost:9092 describe --replication --human-readable",
         "each voter and observer of the KRaft metadata quorum, with its lag and last fetch"),
    ],
    "kafka-streams-groups": [
        ("kcli kafka-streams-groups --bootstrap-server localhost:9092 --list --state",
         "every Kafka Streams application's group, with its state"),
        ("kcli kafka-streams-groups --bootstrap-server localhost:9092 --describe --all-groups --state --verbose",
         "each streams group's state with GROUP-CREATION-TIME (KIP-1282)"),
        ("kcli kafka-streams-groups --bootstrap-server localhost:9092 --reset-offsets --all-groups "
         "--all-input-topics --to-earliest --dry-run", "plan the stopped applications' reprocessing from the start"),
    ],
    "list acls": [
        ("kcli list acls", "every ACL, one row each"),
        ("kcli list acls --topic orders", "every ACL that applies to the topic orders: its own, '*' and prefixes"),
        ("kcli list acls --principal User:alice -o plain", "alice's ACLs, as kafka-acls --list prints them"),
    ],
    "create acl": [
        ("kcli create acl --topic orders --allow-principal User:alice --operation read --operation describe",
         "let alice read orders; the linter warns first of what would surprise"),
        ("kcli create acl --topic billing- --group billing- --resource-pattern-type prefixed "
         "--allow-principal User:billing --operation read",
         "read every topic and group whose name starts with billing-"),
    ],
    "delete acls": [
        ("kcli delete acls --topic orders --principal User:alice", "what would be deleted: a dry run"),
        ("kcli delete acls --topic orders --principal User:alice --execute", "delete them"),
    ],
    "kafka-acls": [
        ("kcli kafka-acls --bootstrap-server localhost:9092 --add --allow-principal User:alice --operation Read "
         "--topic orders", "let alice read orders; kcli's linter warns on stderr first"),
        ("kcli kafka-acls --bootstrap-server localhost:9092 --list --principal User:alice", "alice's ACLs"),
    ],
    "list transactions": [
        ("kcli list transactions --older-than 10m",
         "the transactional ids whose transaction has run for over 10 minutes"),
    ],
    "describe transactions": [
        ("kcli describe transactions payments-tx-1",
         "its producer, epoch, state and the partitions of its transaction"),
    ],
    "check transactions": [
        ("kcli check transactions --older-than 5m",
         "the transactions holding an LSO back for 5 minutes, the hanging ones and their abort lines; exit 4 on a "
         "hanging one"),
    ],
    "abort transaction": [
        ("kcli abort transaction --topic orders --partition 0 --start-offset 42",
         "what the abort would write (a dry run)"),
        ("kcli abort transaction --topic orders --partition 0 --start-offset 42 --execute",
         "write the abort marker: read_committed consumers move past offset 42"),
    ],
    "kafka-transactions": [
        ("kcli kafka-transactions --bootstrap-server localhost:9092 find-hanging --broker-id 1",
         "the hanging transactions on broker 1's partitions, as kafka-transactions finds them"),
        ("kcli kafka-transactions --bootstrap-server localhost:9092 abort --topic orders --partition 0 "
         "--start-offset 42", "write the abort marker of the transaction open at offset 42"),
    ],
    "kafka-share-groups": [
        ("kcli kafka-share-groups --bootstrap-server localhost:9092 --list --state",
         "every share group, with its state"),
        ("kcli kafka-share-groups --bootstrap-server localhost:9092 --describe --all-groups",
         "each share group's start offsets and lag per partition"),
    ],
    "completion": [
        ("kcli completion bash", "the bash script: add 'source <(kcli completion bash)' to ~/.bashrc"),
        ("kcli completion fish", "the fish script, for ~/.config/fish/conf.d/kcli.fish"),
    ],
}


def epilog(path: str) -> str | None:
    """The examples of the command at ``path`` as click prints an epilog (``\\b``: kept as
    written, not rewrapped)."""
    examples = EXAMPLES.get(path)
    if not examples:
        return None
    lines = [f"  {line}\n      {what[0].upper()}{what[1:]}." for line, what in examples]
    return "Examples:\n\n\b\n" + "\n".join(lines)

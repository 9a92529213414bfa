"""The drop-in corpus: command lines taken from Apache Kafka's own tool tests (TopicCommandTest,
DescribeConsumerGroupTest, ListConsumerGroupTest, ResetConsumerGroupOffsetTest,
DeleteConsumerGroupsTest, DeleteOffsetsConsumerGroupCommandIntegrationTest, GetOffsetShellTest,
GetOffsetShellParsingTest, ConfigCommandTest) and from Kafka's operations documentation
(``docs/operations``), written out as argument lists for the corpus's cluster state
(``corpus.State``). Each runs through the Java tool and through ``kcli <tool>`` with the same
words; the differences each case declares are the drop-in table of docs/dropins.md."""

from __future__ import annotations

from tests.parity.harness import EXIT, STDERR, STDOUT, Case

B = ("--bootstrap-server", "{b}")


def dropin(tool: str, *args: str, differs=None, prepare=None, id: str, bootstrap: bool = True,
           canonical=None) -> Case:
    return Case(id, (tool, *(B if bootstrap else ()), *args), (), differs or {}, prepare, dropin=True,
                canonical=canonical)


def topics(*args, **kw):
    return dropin("kafka-topics", *args, **kw)


def groups(*args, **kw):
    return dropin("kafka-consumer-groups", *args, **kw)


def offsets(*args, **kw):
    return dropin("kafka-get-offsets", *args, **kw)


def configs(*args, **kw):
    return dropin("kafka-configs", *args, **kw)


def delete_records(*args, **kw):
    return dropin("kafka-delete-records", *args, **kw)


def records_file(name: str, **kw) -> Case:
    """kafka-delete-records with one of the corpus's offset files (``corpus.OFFSET_FILES``)."""
    return delete_records("--offset-json-file", f"{{records_{name.replace('-', '_')}}}",
                          id=f"dropin-delete-records-{name}", **kw)


def sizes_masked(text: str) -> str:
    """kafka-log-dirs' output with each replica's size masked: __consumer_offsets grows while the
    corpus's active groups commit, between the Java tool's run and kcli's (every other byte, key
    and list order compared)."""
    import re

    return re.sub(r'"size":\d+', '"size":0', text)


def log_dirs(*args, **kw):
    return dropin("kafka-log-dirs", *args, canonical=sizes_masked, **kw)


def quorum_masked(text: str) -> str:
    """kafka-metadata-quorum's output with what moves from run to run masked: the high watermark
    and each replica's log end offset (a no-op record every 500 ms) and fetch times (kept: the
    layout, every id, endpoint, lag and status). In the --replication table the masked cells'
    padding goes too, as it follows their widths."""
    import re

    text = re.sub(r"^(HighWatermark: +)\d+$", r"\1N", text, flags=re.M)
    lines = []
    for line in text.splitlines(keepends=True):
        cells = line.split("\t")
        if len(cells) == 8 and cells[0].strip() != "NodeId":
            cells = [c if i not in (2, 4, 5) else "N" for i, c in enumerate(cells)]
        lines.append("\t".join(cells))
    return "".join(lines)


def quorum(*args, **kw):
    return dropin("kafka-metadata-quorum", *args, canonical=quorum_masked, **kw)


def epoch_masked(text: str) -> str:
    """kafka-features describe's output with the finalized epoch masked: it is the metadata log's
    offset, which grows by a no-op every 500 ms."""
    import re

    return re.sub(r"Epoch: \d+$", "Epoch: N", text, flags=re.M)


def features(*args, **kw):
    return dropin("kafka-features", *args, canonical=epoch_masked, **kw)


def election(*args, **kw):
    return dropin("kafka-leader-election", *args, **kw)


def cluster(*words: str, bootstrap: bool = True, differs=None, id: str) -> Case:
    """kafka-cluster: its command first (argparse4j), then the connection options; in a JVM of its
    own (``Case.own_jvm``)."""
    connect = B if bootstrap and words else ()
    return Case(id, ("kafka-cluster", *words[:1], *connect, *words[1:]), (), differs or {}, dropin=True, own_jvm=True)


USAGE = {STDERR: "usage-text", EXIT: "usage-exit"}                 # Java: message + help, exit 1
ARGPARSE = {STDERR: "argparse-usage", EXIT: "usage-exit"}           # Java: usage, wrapped message, exit 1
PARSE = {STDERR: "stack-trace", EXIT: "usage-exit"}                 # Java: message + stack trace
BAD_QUOTA = {EXIT: "usage-exit"}            # kafka-configs: its message alone on stderr, exit 1
ARGPARSE = {STDERR: "argparse-usage", EXIT: "usage-exit"}          # argparse4j: usage, wrapped message
TOPIC_FAILED = {STDERR: "stack-trace"}                               # stdout line, ERROR log + trace
TOPIC_BAD_INPUT = {STDERR: "stack-trace", EXIT: "usage-exit"}
GROUP_FAILED = {STDERR: "stack-trace", EXIT: "honest-exit"}          # stdout line, trace, exit 0
GROUP_BAD_INPUT = {STDERR: "stack-trace", EXIT: "usage-exit"}
P = "{p}-topic"

CASES: list[Case] = [
    # -- kafka-topics (TopicCommandTest; docs: basic_ops "Adding and removing topics") ----------
    topics("--list", id="dropin-topics-list"),
    topics("--list", "--exclude-internal", id="dropin-topics-list-exclude-internal"),
    topics("--list", "--topic", f"{P}.*", id="dropin-topics-list-regex"),
    topics("--describe", "--topic", "{orders}", id="dropin-topics-describe"),
    topics("--describe", "--topic={payments}", id="dropin-topics-describe-equals"),
    topics("--describe", "--exclude-internal", id="dropin-topics-describe-all"),
    topics("--describe", "--topics-with-overrides", id="dropin-topics-with-overrides"),
    topics("--describe", "--under-replicated-partitions", id="dropin-topics-under-replicated"),
    topics("--describe", "--under-min-isr-partitions", "--exclude-internal", id="dropin-topics-under-min-isr"),
    topics("--describe", "--at-min-isr-partitions", "--topic", "{orders}", id="dropin-topics-at-min-isr"),
    topics("--describe", "--unavailable-partitions", id="dropin-topics-unavailable"),
    topics("--describe", "--partition-size-limit-per-response=2", "--exclude-internal",
           id="dropin-topics-partition-size-limit"),
    topics("--describe", "--topic-id", "{orders_id}", id="dropin-topics-describe-topic-id"),
    topics("--describe", "--if-exists", "--topic", "{orders}", "--topic-id", "AAAAAAAAAAAAAAAAAAAAAA",
           id="dropin-topics-describe-zero-topic-id"),
    topics("--describe", "--topic", "nosuch-topic", differs=TOPIC_FAILED, id="dropin-topics-describe-missing"),
    topics("--describe", "--topic", "nosuch-topic", "--if-exists", id="dropin-topics-describe-if-exists"),
    topics("--describe", "--if-exists", differs=USAGE, id="dropin-topics-describe-if-exists-no-topic"),
    topics("--describe", "--topic", "{orders}", "--delete-config", "retention.ms",
           id="dropin-topics-delete-config-notice"),
    topics("--create", "--topic", "{created}", "--partitions", "2", "--replication-factor", "1", "--config",
           "retention.ms=1000", prepare="no-created-topic", id="dropin-topics-create"),
    topics("--create", "--topic", "{dotted}", prepare="no-dotted-topic", id="dropin-topics-create-collision"),
    topics("--create", "--topic", "{created}", "--replica-assignment", "1", prepare="no-created-topic",
           id="dropin-topics-create-replica-assignment"),
    topics("--create", "--topic", "{orders}", differs=TOPIC_FAILED, id="dropin-topics-create-existing"),
    topics("--create", "--topic", "{orders}", "--if-not-exists", id="dropin-topics-create-if-not-exists"),
    topics("--create", "--topic", "{created}", "--partitions", "0", differs=TOPIC_BAD_INPUT,
           id="dropin-topics-create-zero-partitions"),
    topics("--create", "--topic", "{created}", "--replication-factor", "32768", differs=TOPIC_BAD_INPUT,
           id="dropin-topics-create-rf-too-big"),
    topics("--create", "--topic", "{created}", "--replica-assignment", "5:5", differs=TOPIC_BAD_INPUT,
           id="dropin-topics-create-duplicate-replicas"),
    topics("--create", "--topic", "{created}", "--replica-assignment", "1", "--partitions", "2", differs=USAGE,
           id="dropin-topics-create-assignment-and-partitions"),
    topics("--create", "--topic", "{created}", "--config", "retention.ms", differs=TOPIC_BAD_INPUT,
           id="dropin-topics-create-bad-config"),
    topics("--create", "--topic", "{created}", "--partitions", "abc", differs=TOPIC_BAD_INPUT,
           id="dropin-topics-create-partitions-not-a-number"),
    topics("--alter", "--topic", "{altered}", "--partitions", "3", prepare="two-partition-topic",
           id="dropin-topics-alter"),
    topics("--alter", "--topic", "{orders}", "--partitions", "2", differs=TOPIC_FAILED,
           id="dropin-topics-alter-not-an-increase"),
    topics("--alter", "--topic", "nosuch-topic", "--partitions", "3", "--if-exists",
           id="dropin-topics-alter-if-exists"),
    topics("--alter", "--topic", "{orders}", differs=USAGE, id="dropin-topics-alter-no-partitions"),
    topics("--delete", "--topic", "{deleted}", prepare="deletable-topic", id="dropin-topics-delete"),
    topics("--delete", "--topic", "nosuch-topic", differs=TOPIC_FAILED, id="dropin-topics-delete-missing"),
    topics("--delete", "--topic", "nosuch-topic", "--if-exists", id="dropin-topics-delete-if-exists"),
    topics("--list", "--describe", differs=USAGE, id="dropin-topics-two-actions"),
    topics("--list", bootstrap=False, differs=PARSE, id="dropin-topics-no-bootstrap"),
    topics("--lis", differs=PARSE, id="dropin-topics-abbreviation"),
    topics("--help", bootstrap=False, id="dropin-topics-help"),
    topics(bootstrap=False, id="dropin-topics-no-arguments"),
    topics("--version", bootstrap=False, differs={STDOUT: "version"}, id="dropin-topics-version"),

    # -- kafka-consumer-groups: list and describe (ListConsumerGroupTest, DescribeConsumerGroupTest)
    groups("--list", id="dropin-groups-list"),
    groups("--list", "--state", id="dropin-groups-list-state"),
    groups("--list", "--type", id="dropin-groups-list-type"),
    groups("--list", "--type", "--state", id="dropin-groups-list-type-state"),
    groups("--list", "--state", "Stable", id="dropin-groups-list-state-stable"),
    groups("--list", "--state", "stable, empty", id="dropin-groups-list-two-states"),
    groups("--list", "--type", "classic", id="dropin-groups-list-type-classic"),
    groups("--list", "--timeout", "5000", id="dropin-groups-list-timeout"),
    groups("--list", "--members", differs=PARSE, id="dropin-groups-list-members-unavailable"),
    groups("--describe", "--group", "{g_classic}", id="dropin-groups-describe"),
    groups("--describe", "--group", "{g_classic}", "--offsets", "--verbose", id="dropin-groups-describe-verbose"),
    groups("--describe", "--group", "{g_classic}", "--group", "{g_consumer}", id="dropin-groups-describe-two"),
    groups("--describe", "--group", "{g_simple}", id="dropin-groups-describe-simple-consumer"),
    groups("--describe", "--group", "{g_stable}", "--members", id="dropin-groups-members"),
    groups("--describe", "--group", "{g_stable}", "--members", "--verbose", id="dropin-groups-members-verbose"),
    groups("--describe", "--group", "{g_stable848}", "--members", "--verbose",
           id="dropin-groups-members-verbose-consumer-protocol"),
    groups("--describe", "--group", "{g_stable}", "--state", id="dropin-groups-state"),
    groups("--describe", "--group", "{g_stable848}", "--state", "--verbose", differs={STDOUT: "kip-1282-column"},
           id="dropin-groups-state-verbose"),
    groups("--describe", "--group", "{g_stable}", "--state", "--verbose", differs={STDOUT: "kip-1282-column"},
           id="dropin-groups-state-verbose-classic"),
    groups("--describe", "--group", "nosuch-group", differs=GROUP_FAILED, id="dropin-groups-describe-missing"),
    groups("--describe", "--group", "{g_classic}", "--members", "--state", differs=USAGE,
           id="dropin-groups-describe-two-views"),
    groups("--describe", "--group", "{g_classic}", "--state", "Stable", differs=USAGE,
           id="dropin-groups-describe-state-value"),
    groups("--validate-regex", "foo.*", id="dropin-groups-validate-regex"),
    groups("--help", bootstrap=False, differs={STDERR: "kip-1282-option"}, id="dropin-groups-help"),
    groups("--validate-regex", "[foo.*", id="dropin-groups-validate-regex-invalid"),

    # -- kafka-consumer-groups: reset-offsets (ResetConsumerGroupOffsetTest; docs) -------------
    groups("--reset-offsets", "--group", "{g_classic}", "--topic", "{orders}", "--to-offset", "5", "--dry-run",
           id="dropin-reset-to-offset"),
    groups("--reset-offsets", "--group", "{g_classic}", "--topic", "{orders}", "--to-offset", "5",
           id="dropin-reset-without-dry-run"),
    groups("--reset-offsets", "--group", "{g_classic}", "--topic", "{orders}:1", "--to-offset", "999", "--dry-run",
           id="dropin-reset-to-offset-clamped"),
    groups("--reset-offsets", "--group", "{g_classic}", "--all-topics", "--to-earliest", "--dry-run",
           id="dropin-reset-all-topics-to-earliest"),
    groups("--reset-offsets", "--group", "{g_classic}", "--topic", "{orders}", "--to-latest", "--dry-run",
           id="dropin-reset-to-latest"),
    groups("--reset-offsets", "--group", "{g_simple}", "--topic", "{orders}", "--to-current", "--dry-run",
           id="dropin-reset-to-current"),
    groups("--reset-offsets", "--group", "{g_classic}", "--topic", "{orders}", "--shift-by", "-3", "--dry-run",
           id="dropin-reset-shift-by"),
    groups("--reset-offsets", "--group", "{g_classic}", "--topic", "{orders}", "--shift-by", "150", "--dry-run",
           id="dropin-reset-shift-by-clamped"),
    groups("--reset-offsets", "--group", "{g_simple}", "--topic", "{orders}", "--shift-by", "1", "--dry-run",
           differs=USAGE, id="dropin-reset-shift-by-no-commit"),
    groups("--reset-offsets", "--group", "{g_classic}", "--topic", "{orders}", "--to-datetime", "{datetime}",
           "--dry-run", id="dropin-reset-to-datetime"),
    groups("--reset-offsets", "--group", "{g_classic}", "--topic", "{orders}", "--to-datetime",
           "2099-01-01T00:00:00.000", "--dry-run", id="dropin-reset-to-datetime-future"),
    groups("--reset-offsets", "--group", "{g_classic}", "--topic", "{orders}", "--to-datetime", "yesterday",
           "--dry-run", differs=GROUP_BAD_INPUT, id="dropin-reset-bad-datetime"),
    groups("--reset-offsets", "--group", "{g_classic}", "--topic", "{orders}", "--to-datetime",
           "2024-01-01T00:00:00", "--dry-run", differs=GROUP_BAD_INPUT, id="dropin-reset-datetime-no-millis"),
    groups("--reset-offsets", "--group", "{g_classic}", "--topic", "{orders}", "--by-duration", "PT2H", "--dry-run",
           id="dropin-reset-by-duration"),
    groups("--reset-offsets", "--group", "{g_classic}", "--topic", "{orders}", "--by-duration", "PT0.1S",
           "--dry-run", id="dropin-reset-by-duration-short"),
    groups("--reset-offsets", "--group", "{g_classic}", "--topic", "{orders}", "--by-duration", "15m", "--dry-run",
           differs=GROUP_BAD_INPUT, id="dropin-reset-bad-duration"),
    groups("--reset-offsets", "--group", "{g_classic}", "--group", "{g_consumer}", "--topic", "{payments}",
           "--to-latest", "--dry-run", id="dropin-reset-two-groups"),
    groups("--reset-offsets", "--group", "{g_classic}", "--topic", "{orders}", "--to-offset", "2", "--export",
           "--dry-run", id="dropin-reset-export"),
    groups("--reset-offsets", "--group", "{g_classic}", "--group", "{g_consumer}", "--all-topics", "--to-offset",
           "2", "--export", "--dry-run", id="dropin-reset-export-two-groups"),
    groups("--reset-offsets", "--group", "{g_classic}", "--from-file", "{plan}", "--dry-run",
           id="dropin-reset-from-file"),
    groups("--reset-offsets", "--group", "{g_reset}", "--topic", "{orders}", "--to-offset", "2", "--execute",
           prepare="reset-group-at-5", differs={STDERR: "rollback-note"}, id="dropin-reset-execute"),
    groups("--reset-offsets", "--group", "{g_reset}", "--topic", "{orders}:1", "--to-earliest", "--execute",
           prepare="reset-group-at-5", differs={STDERR: "rollback-note"}, id="dropin-reset-execute-one-partition"),
    groups("--reset-offsets", "--group", "{g_stable}", "--topic", "{orders}", "--to-earliest", "--dry-run",
           differs={EXIT: "honest-exit"}, id="dropin-reset-active-group"),
    groups("--reset-offsets", "--group", "{g_classic}", "--topic", "{orders}:9", "--to-earliest", "--dry-run",
           differs=GROUP_FAILED, id="dropin-reset-missing-partition"),
    groups("--reset-offsets", "--group", "{g_classic}", "--topic", "nosuch-topic", "--to-earliest", "--dry-run",
           differs=GROUP_FAILED, id="dropin-reset-missing-topic"),
    groups("--reset-offsets", "--group", "nosuch-group", "--all-topics", "--to-current", "--dry-run",
           differs={STDERR: "kcli-notice"}, id="dropin-reset-new-group"),
    groups("--reset-offsets", "--group", "{g_classic}", "--topic", "{orders}", "--to-earliest", "--execute",
           "--dry-run", differs=USAGE, id="dropin-reset-execute-and-dry-run"),
    groups("--reset-offsets", "--group", "{g_classic}", "--topic", "{orders}", "--to-offset", "abc", "--dry-run",
           differs=GROUP_BAD_INPUT, id="dropin-reset-to-offset-not-a-number"),
    groups("--reset-offsets", "--group", "{g_classic}", "--topic", "{orders}", "--to-start-time", "--dry-run",
           differs={STDOUT: "kip-1282-option", STDERR: "kip-1282-option"}, id="dropin-reset-to-start-time"),

    # -- kafka-consumer-groups: deletes (DeleteConsumerGroupsTest, DeleteOffsets...Test) --------
    groups("--delete", "--group", "{g_del}", prepare="deletable-group", id="dropin-groups-delete"),
    groups("--delete", "--group", "nosuch-group", differs={EXIT: "honest-exit"}, id="dropin-groups-delete-missing"),
    groups("--delete", "--group", "{g_stable}", differs={EXIT: "honest-exit"}, id="dropin-groups-delete-active"),
    groups("--delete", "--group", "{g_del}", "--group", "nosuch-group", prepare="deletable-group",
           differs={EXIT: "honest-exit"}, id="dropin-groups-delete-some"),
    groups("--delete", "--group", "{g_del}", "--topic", "{orders}", differs=USAGE, id="dropin-groups-delete-topic"),
    groups("--delete-offsets", "--group", "{g_del}", "--topic", "{orders}:0", prepare="deletable-group",
           id="dropin-delete-offsets"),
    groups("--delete-offsets", "--group", "{g_stable}", "--topic", "{orders}", differs={EXIT: "honest-exit"},
           id="dropin-delete-offsets-subscribed"),
    groups("--delete-offsets", "--group", "nosuch-group", "--topic", "{orders}", differs={EXIT: "honest-exit"},
           id="dropin-delete-offsets-missing-group"),
    groups("--delete-offsets", "--group", "{g_del}", "--group", "{g_classic}", "--topic", "{orders}",
           differs=GROUP_BAD_INPUT, id="dropin-delete-offsets-two-groups"),

    # -- kafka-get-offsets (GetOffsetShellTest, GetOffsetShellParsingTest) ---------------------
    offsets(id="dropin-offsets-all"),
    offsets("--exclude-internal-topics", id="dropin-offsets-exclude-internal"),
    offsets("--topic", f"{P}1", id="dropin-offsets-topic"),
    offsets("--topic", f"{P}.*", id="dropin-offsets-topic-regex"),
    offsets("--topic", f"{P}.*", "--partitions", "0,1", id="dropin-offsets-partitions"),
    offsets("--topic-partitions", f"{P}1:0,{P}2:1,{P}(3|4):2,__.*:3", id="dropin-offsets-topic-partitions"),
    offsets("--topic-partitions", f"{P}.*:0", "--time", "-1", id="dropin-offsets-latest"),
    offsets("--topic-partitions", f"{P}.*:0", "--time", "earliest", id="dropin-offsets-earliest"),
    offsets("--topic-partitions", f"{P}.*:0", "--time", "-3", id="dropin-offsets-max-timestamp"),
    offsets("--topic-partitions", f"{P}.*", "--time", "earliest-local", id="dropin-offsets-earliest-local"),
    offsets("--topic-partitions", f"{P}.*", "--time", "-5", id="dropin-offsets-latest-tiered"),
    offsets("--topic-partitions", f"{P}.*", "--time", "-6", id="dropin-offsets-earliest-pending-upload"),
    offsets("--topic-partitions", ":1-3", id="dropin-offsets-range"),
    offsets("--topic-partitions", f"{P}.*:2-", id="dropin-offsets-lower-bound"),
    offsets("--topic-partitions", f"{P}.*:-2", id="dropin-offsets-upper-bound"),
    offsets("--topic", "{orders}", "--time", "{timestamp}", id="dropin-offsets-timestamp"),
    offsets("--topic", "nosuch-topic", id="dropin-offsets-no-match"),
    offsets("--topic-partitions", "__consumer_offsets", "--exclude-internal-topics",
            id="dropin-offsets-internal-excluded"),
    offsets("--topic-partitions", "{orders}", "--topic", "{orders}", differs={EXIT: "usage-exit"},
            id="dropin-offsets-topic-partitions-and-topic"),
    offsets("--topic-partitions", "{orders}", "--partitions", "0", differs={EXIT: "usage-exit"},
            id="dropin-offsets-topic-partitions-and-partitions"),
    offsets("--time", "foo", differs={EXIT: "usage-exit"}, id="dropin-offsets-bad-time"),
    offsets("--topic-partitions", "{orders}:x", differs=PARSE, id="dropin-offsets-bad-rule"),
    offsets("--partitions", "a,b", differs={EXIT: "usage-exit"}, id="dropin-offsets-bad-partitions"),
    offsets("--help", bootstrap=False, id="dropin-offsets-help"),

    # -- kafka-configs (ConfigCommandTest; docs: "Updating broker configs", topic-level configs)
    configs("--describe", "--entity-type", "topics", "--entity-name", "{payments}", id="dropin-configs-describe-topic"),
    configs("--describe", "--topic", "{payments}", "--all", id="dropin-configs-describe-topic-all"),
    configs("--describe", "--entity-type", "brokers", "--entity-name", "1", id="dropin-configs-describe-broker"),
    configs("--describe", "--entity-type", "brokers", "--entity-default", id="dropin-configs-describe-defaults"),
    configs("--describe", "--broker-defaults", id="dropin-configs-describe-broker-defaults"),
    configs("--describe", "--entity-type", "brokers", id="dropin-configs-describe-brokers"),
    configs("--describe", "--topic", "nosuch-topic", id="dropin-configs-describe-missing-topic"),
    configs("--alter", "--entity-type", "topics", "--entity-name", "{payments}", "--add-config",
            "segment.ms=3600000", prepare="no-segment-override", id="dropin-configs-add"),
    configs("--alter", "--topic", "{payments}", "--add-config", "segment.ms=3600000,cleanup.policy=[delete,compact]",
            prepare="no-segment-override", id="dropin-configs-add-list"),
    configs("--alter", "--topic", "{payments}", "--delete-config", "segment.ms,cleanup.policy",
            prepare="segment-override", id="dropin-configs-delete"),
    configs("--alter", "--entity-type", "topics", "--entity-name", "{payments}", "--add-config-file", "{props}",
            prepare="no-segment-override", id="dropin-configs-add-config-file"),
    configs("--alter", "--entity-type", "brokers", "--entity-default", "--add-config", "log.cleaner.threads=2",
            prepare="no-broker-default", id="dropin-configs-alter-defaults"),
    configs("--alter", "--broker-defaults", "--delete-config", "log.cleaner.threads", prepare="broker-default",
            id="dropin-configs-delete-default"),
    configs("--alter", "--entity-type", "brokers", "--entity-name", "1", "--add-config", "log.cleaner.threads=2",
            prepare="no-broker-override", id="dropin-configs-alter-broker"),
    configs("--alter", "--topic", "{payments}", differs={EXIT: "usage-exit"}, id="dropin-configs-alter-nothing"),
    configs("--alter", "--topic", "{payments}", "--add-config", "segment.ms", differs={EXIT: "usage-exit"},
            id="dropin-configs-add-bad-pair"),
    configs("--describe", "--entity-type", "topics", "--topic", "{payments}", differs={EXIT: "usage-exit"},
            id="dropin-configs-duplicate-entity-type"),
    configs("--describe", "--entity-type", "brokers", "--entity-name", "x", differs={EXIT: "usage-exit"},
            id="dropin-configs-bad-broker-id"),
    configs("--describe", differs={EXIT: "usage-exit"}, id="dropin-configs-no-entity"),
    configs("--help", bootstrap=False, id="dropin-configs-help"),

    # -- kafka-delete-records (DeleteRecordsCommandTest, DeleteRecordsCommandUnitTest) ----------
    records_file("one", prepare="records-topic"),
    records_file("high-watermark", prepare="records-topic"),
    records_file("empty", prepare="records-topic"),
    records_file("out-of-range", prepare="records-topic", differs={STDERR: "stack-trace", EXIT: "records-exit"}),
    *(records_file(name, differs=PARSE) for name in (
        "duplicates", "version-string", "version-2", "version-only", "partitions-number", "partitions-object",
        "partition-empty", "partition-topic-only", "partition-text", "partition-no-offset", "partition-no-partition",
        "not-json")),
    delete_records("--offset-json-file", "/not/existing/file", differs=PARSE, id="dropin-delete-records-no-file"),
    delete_records(differs=USAGE, id="dropin-delete-records-no-file-option"),
    delete_records("--offset-json-file", "{records_one}", bootstrap=False, differs=USAGE,
                   id="dropin-delete-records-no-bootstrap"),
    delete_records(bootstrap=False, id="dropin-delete-records-no-arguments"),
    delete_records("--help", bootstrap=False, id="dropin-delete-records-help"),
    delete_records("--version", bootstrap=False, differs={STDOUT: "version"}, id="dropin-delete-records-version"),
    # -- kafka-log-dirs (LogDirsCommandTest; docs: operations "Checking log directories") -------
    log_dirs("--describe", id="dropin-log-dirs-all-brokers"),
    log_dirs("--describe", "--topic-list", "{payments}", id="dropin-log-dirs-topic"),
    log_dirs("--describe", "--topic-list", "{payments},{orders},,", "--broker-list", "1", id="dropin-log-dirs-broker"),
    log_dirs("--describe", "--topic-list", "{p}-none", id="dropin-log-dirs-no-such-topic"),
    log_dirs("--describe", "--broker-list", "1,1,", "--topic-list", "{orders}", id="dropin-log-dirs-duplicate-brokers"),
    log_dirs("--describe", "--broker-list", "0,1,2", id="dropin-log-dirs-no-such-broker"),
    log_dirs("--describe", "--broker-list", "1,x", differs=PARSE, id="dropin-log-dirs-bad-broker"),
    log_dirs("--describe", bootstrap=False, differs=USAGE, id="dropin-log-dirs-no-bootstrap"),
    log_dirs(differs=USAGE, id="dropin-log-dirs-no-describe"),
    log_dirs(bootstrap=False, id="dropin-log-dirs-no-arguments"),
    log_dirs("--help", bootstrap=False, id="dropin-log-dirs-help"),
    log_dirs("--version", bootstrap=False, differs={STDOUT: "version"}, id="dropin-log-dirs-version"),
    # -- kafka-cluster (ClusterToolTest; KIP-1220's api-versions) --------------------------------
    cluster("cluster-id", id="dropin-cluster-id"),
    cluster("cluster-id", "--config", "{client_props}", id="dropin-cluster-id-deprecated-config"),
    cluster("cluster-id", "--command-config", "{client_props}", id="dropin-cluster-id-command-config"),
    cluster("cluster-id", "--config", "{client_props}", "--command-config", "{client_props}", differs=PARSE,
            id="dropin-cluster-config-and-command-config"),
    cluster("list-endpoints", id="dropin-cluster-list-endpoints"),
    cluster("list-endpoints", "--include-fenced-brokers", id="dropin-cluster-list-endpoints-fenced"),
    cluster("list-endpoints", "--bootstrap-controller", "127.0.0.1:1", "--include-fenced-brokers", bootstrap=False,
            differs=PARSE, id="dropin-cluster-list-endpoints-fenced-controller"),
    cluster("api-versions", id="dropin-cluster-api-versions"),
    cluster("unregister", "--id", "99", differs={STDERR: "stack-trace"}, id="dropin-cluster-unregister-unknown"),
    cluster("unregister-controller", "-i", "99", differs={STDERR: "stack-trace"},
            id="dropin-cluster-unregister-controller"),
    cluster("unregister", differs=ARGPARSE, id="dropin-cluster-unregister-no-id"),
    cluster("unregister", "--id", "x", differs=ARGPARSE, id="dropin-cluster-unregister-bad-id"),
    cluster("cluster-id", bootstrap=False, differs=ARGPARSE, id="dropin-cluster-no-connection"),
    cluster("cluster-id", "-C", "127.0.0.1:1", differs=ARGPARSE, id="dropin-cluster-both-connections"),
    cluster("list-endpoints", "--include-fenced-brokers=true", differs=ARGPARSE, id="dropin-cluster-flag-value"),
    cluster("unreg", "--id", "1", differs=ARGPARSE, id="dropin-cluster-ambiguous-command"),
    cluster("brokers", differs=ARGPARSE, id="dropin-cluster-unknown-command"),
    cluster(differs=ARGPARSE, id="dropin-cluster-no-command"),
    cluster("-h", bootstrap=False, id="dropin-cluster-help"),
    *(cluster(command, "-h", bootstrap=False, id=f"dropin-cluster-{command}-help")
      for command in ("cluster-id", "unregister", "unregister-controller", "list-endpoints", "api-versions")),
    # -- kafka-metadata-quorum (MetadataQuorumCommandTest, MetadataQuorumCommandErrorTest; docs:
    # operations "Monitoring KRaft") ------------------------------------------------------------
    quorum("describe", "--status", id="dropin-quorum-status"),
    quorum("describe", "--replication", id="dropin-quorum-replication"),
    quorum("describe", "--re", "--human-readable", id="dropin-quorum-replication-human-readable"),
    quorum("desc", "--status", id="dropin-quorum-command-prefix"),
    quorum("describe", differs=BAD_QUOTA, id="dropin-quorum-describe-neither"),
    quorum("describe", "--status", "--replication", differs=BAD_QUOTA, id="dropin-quorum-describe-both"),
    quorum("describe", "--status", "--human-readable", differs=BAD_QUOTA, id="dropin-quorum-status-human-readable"),
    quorum("--command-config", "admin.properties", "describe", "--status", differs=BAD_QUOTA,
           id="dropin-quorum-no-properties-file"),
    quorum("describe", "--status", bootstrap=False, differs=ARGPARSE, id="dropin-quorum-no-bootstrap"),
    quorum("--bootstrap-controller", "127.0.0.1:1", "describe", "--status", differs=ARGPARSE,
           id="dropin-quorum-both-bootstraps"),
    quorum(differs=ARGPARSE, id="dropin-quorum-no-command"),
    quorum("nosuch", differs=ARGPARSE, id="dropin-quorum-unknown-command"),
    quorum("describe", "--nosuch", differs=ARGPARSE, id="dropin-quorum-unknown-option"),
    quorum("describe", "--status=yes", differs=ARGPARSE, id="dropin-quorum-flag-with-value"),
    quorum("remove-controller", "--controller-directory-id", "_KWDkTahTVaiVVVTaugNew", "--dry-run",
           differs=ARGPARSE, id="dropin-quorum-remove-controller-no-id"),
    quorum("remove-controller", "--controller-id", "1", differs=ARGPARSE,
           id="dropin-quorum-remove-controller-no-directory-id"),
    quorum("remove-controller", "-i", "x", "-d", "_KWDkTahTVaiVVVTaugNew", differs=ARGPARSE,
           id="dropin-quorum-remove-controller-id-not-a-number"),
    quorum("remove-controller", "-i", "-1", "-d", "_KWDkTahTVaiVVVTaugNew", differs=BAD_QUOTA,
           id="dropin-quorum-remove-controller-negative-id"),
    quorum("add-controller", differs=BAD_QUOTA, id="dropin-quorum-add-controller-no-config"),
    quorum("-h", bootstrap=False, id="dropin-quorum-help"),
    quorum("describe", "-h", id="dropin-quorum-describe-help"),
    quorum("add-controller", "--help", id="dropin-quorum-add-controller-help"),
    quorum("remove-controller", "-h", id="dropin-quorum-remove-controller-help"),
    # -- kafka-features (FeatureCommandTest; docs: operations "Upgrading"): every update is a dry
    # run (validate-only): the corpus's cluster is shared ------------------------------------------
    features("describe", id="dropin-features-describe"),
    features("describe", "--node-id", "1", id="dropin-features-describe-node"),
    features("describe", "--node-id", "-1", differs=BAD_QUOTA, id="dropin-features-describe-negative-node"),
    features("describe", "--node-id", "x", differs=BAD_QUOTA, id="dropin-features-describe-node-not-a-number"),
    features("upgrade", "--feature", "metadata.version=7", "--dry-run", id="dropin-features-upgrade-down"),
    features("upgrade", "--metadata", "3.4-IV0", "--dry-run", id="dropin-features-upgrade-metadata-flag"),
    features("upgrade", "--feature", "transaction.version=2", "--feature", "group.version=1", "--dry-run",
             id="dropin-features-upgrade-unchanged"),
    features("upgrade", "--feature", "group.version=2", "--feature", "share.version=1", "--dry-run",
             id="dropin-features-upgrade-unsupported"),
    features("upgrade", "--release-version", "3.7-IV3", "--dry-run", id="dropin-features-upgrade-release-older"),
    features("upgrade", "--release-version", "4.4-IV2", "--dry-run", id="dropin-features-upgrade-release"),
    features("upgrade", "--release-version", "4.4", "--feature", "group.version=1", differs=BAD_QUOTA,
             id="dropin-features-upgrade-release-and-feature"),
    features("upgrade", "--release-version", "9.9", differs=BAD_QUOTA, id="dropin-features-upgrade-unknown-release"),
    features("upgrade", "--feature", "group.version", differs=BAD_QUOTA, id="dropin-features-upgrade-no-level"),
    features("upgrade", "--feature", "group.version=x", differs=BAD_QUOTA, id="dropin-features-upgrade-bad-level"),
    features("upgrade", "--feature", "group.version=1", "--feature", " group.version = 1", differs=BAD_QUOTA,
             id="dropin-features-upgrade-twice"),
    features("upgrade", "--feature", "group.version=0", differs=BAD_QUOTA, id="dropin-features-upgrade-to-zero"),
    features("upgrade", differs=BAD_QUOTA, id="dropin-features-upgrade-nothing"),
    features("downgrade", "--feature", "transaction.version=1", "--dry-run", id="dropin-features-downgrade"),
    features("downgrade", "--metadata", "3.3-IV3", "--dry-run", id="dropin-features-downgrade-metadata"),
    features("downgrade", "--unsafe", "--metadata", "3.3-IV3", "--dry-run",
             id="dropin-features-downgrade-metadata-unsafe"),
    features("downgrade", "--release-version", "3.9-IV0", "--dry-run", id="dropin-features-downgrade-release"),
    features("downgrade", "--feature", "share.version=3", "--unsafe", "--dry-run",
             id="dropin-features-downgrade-to-newer"),
    features("disable", "--feature", "metadata.version", "--dry-run", id="dropin-features-disable-metadata"),
    features("disable", "--feature", "streams.version", "--feature", "share.version", "--dry-run",
             id="dropin-features-disable"),
    features("disable", "--feature", "streams.version", "--feature", "streams.version", differs=BAD_QUOTA,
             id="dropin-features-disable-twice"),
    features("disable", differs=BAD_QUOTA, id="dropin-features-disable-nothing"),
    features("version-mapping", bootstrap=False, id="dropin-features-version-mapping"),
    features("version-mapping", "--release-version", "3.9", bootstrap=False,
             id="dropin-features-version-mapping-release"),
    features("version-mapping", "--release-version", "3.3-IV0", bootstrap=False, differs=BAD_QUOTA,
             id="dropin-features-version-mapping-unknown"),
    features("feature-dependencies", "--feature", "eligible.leader.replicas.version=1", "--feature",
             "metadata.version=21", "--feature", "share.version=2", bootstrap=False,
             id="dropin-features-dependencies"),
    features("feature-dependencies", "--feature", "group.version=1", "--feature", "group.version=2",
             bootstrap=False, differs=BAD_QUOTA, id="dropin-features-dependencies-unknown-level"),
    features("feature-dependencies", "--feature", "nosuch.version=1", bootstrap=False, differs=BAD_QUOTA,
             id="dropin-features-dependencies-unknown-feature"),
    features("feature-dependencies", bootstrap=False, differs=BAD_QUOTA, id="dropin-features-dependencies-none"),
    features("describe", bootstrap=False, differs=BAD_QUOTA, id="dropin-features-no-bootstrap"),
    features("--bootstrap-controller", "127.0.0.1:1", "describe", differs=BAD_QUOTA,
             id="dropin-features-both-bootstraps"),
    features(bootstrap=False, differs=BAD_QUOTA, id="dropin-features-no-command"),
    features("nosuch", differs=BAD_QUOTA, id="dropin-features-unknown-command"),
    features("describe", "--nosuch", differs=BAD_QUOTA, id="dropin-features-unknown-option"),
    features("-h", bootstrap=False, id="dropin-features-help"),
    features("upgrade", "-h", id="dropin-features-upgrade-help"),
    features("downgrade", "--help", id="dropin-features-downgrade-help"),
    features("disable", "-h", id="dropin-features-disable-help"),
    features("version-mapping", "-h", bootstrap=False, id="dropin-features-version-mapping-help"),
    features("feature-dependencies", "-h", bootstrap=False, id="dropin-features-dependencies-help"),
    features("describe", "-h", id="dropin-features-describe-help"),
    # -- kafka-configs quotas (ConfigCommandTest's users/clients/ips cases; docs: "Setting quotas").
    # No case describes named users alone: the tool then asks for SCRAM credentials too, which the
    # embedded broker does not serve (on Kafka, a user without any prints nothing more). The
    # describe cases read the state the first one prepares.
    configs("--describe", "--entity-type", "users", "--entity-default", prepare="quotas",
            id="dropin-quotas-describe-user-default"),
    configs("--describe", "--user-defaults", id="dropin-quotas-describe-user-defaults"),
    configs("--describe", "--entity-type", "clients", id="dropin-quotas-describe-clients"),
    configs("--describe", "--entity-type", "clients", "--entity-name", "app",
            id="dropin-quotas-describe-client"),
    configs("--describe", "--entity-type", "users", "--entity-name", "alice", "--entity-type", "clients",
            id="dropin-quotas-describe-user-clients"),
    configs("--describe", "--user", "alice", "--client", "app",
            id="dropin-quotas-describe-user-client"),
    configs("--describe", "--entity-type", "users", "--entity-type", "clients", "--entity-default",
            "--entity-default", id="dropin-quotas-describe-default-pair"),
    configs("--describe", "--entity-type", "ips", id="dropin-quotas-describe-ips"),
    configs("--describe", "--ip", "127.0.0.9", id="dropin-quotas-describe-ip"),
    configs("--describe", "--ip-defaults", id="dropin-quotas-describe-ip-defaults"),
    configs("--alter", "--entity-type", "users", "--entity-name", "bob", "--add-config",
            "producer_byte_rate=1048576,request_percentage=50", prepare="quotas", id="dropin-quotas-add-user"),
    configs("--alter", "--user", "alice", "--client", "app", "--add-config", "consumer_byte_rate=20000000",
            prepare="quotas", id="dropin-quotas-add-user-client"),
    configs("--alter", "--entity-type", "users", "--entity-name", "alice", "--delete-config",
            "consumer_byte_rate", prepare="quotas", id="dropin-quotas-delete"),
    configs("--alter", "--client-defaults", "--add-config", "consumer_byte_rate=2147483648", prepare="quotas",
            id="dropin-quotas-add-client-default"),
    configs("--alter", "--entity-type", "ips", "--entity-name", "127.0.0.2", "--add-config",
            "connection_creation_rate=10", prepare="quotas", id="dropin-quotas-add-ip"),
    configs("--alter", "--entity-type", "users", "--entity-name", "alice", "--delete-config",
            "request_percentage", prepare="quotas", id="dropin-quotas-delete-unset"),
    configs("--alter", "--entity-type", "users", "--entity-name", "alice", "--add-config", "bogus=1",
            prepare="quotas", differs=BAD_QUOTA, id="dropin-quotas-unknown-key"),
    configs("--alter", "--entity-type", "clients", "--entity-name", "app", "--add-config",
            "SCRAM-SHA-256=[password=x]", prepare="quotas", differs=BAD_QUOTA, id="dropin-quotas-client-scram"),
    configs("--alter", "--ip-defaults", "--add-config", "producer_byte_rate=1", prepare="quotas", differs=BAD_QUOTA,
            id="dropin-quotas-ip-key"),
    configs("--alter", "--entity-type", "users", "--entity-name", "alice", "--add-config",
            "producer_byte_rate=abc", prepare="quotas", differs=BAD_QUOTA, id="dropin-quotas-bad-value"),
    configs("--describe", "--entity-type", "ips", "--entity-name", "[bad", differs={EXIT: "usage-exit"},
            id="dropin-quotas-bad-ip"),
    # -- kafka-leader-election (LeaderElectionCommandTest, LeaderElectionCommandErrorTest; docs:
    # "Balancing leadership"): every leader is already the preferred one on the corpus's node
    election("--election-type", "preferred", "--all-topic-partitions", id="dropin-elect-all"),
    election("--election-type", "PREFERRED", "--topic", "{orders}", "--partition", "0", id="dropin-elect-one"),
    election("--election-type", "unclean", "--topic", "{orders}", "--partition", "1", id="dropin-elect-unclean"),
    election("--election-type", "unclean", "--all-topic-partitions", id="dropin-elect-unclean-all"),
    election("--election-type", "preferred", "--path-to-json-file", "{elect}", id="dropin-elect-json-file"),
    election("--election-type", "preferred", "--path-to-json-file", "{elect_missing}", differs={STDERR: "stack-trace"},
             id="dropin-elect-unknown-topic"),
    election("--election-type", "preferred", "--path-to-json-file", "{elect_dup}", differs=PARSE,
             id="dropin-elect-duplicates"),
    election("--election-type", "preferred", "--topic", "nosuch-topic", "--partition", "0",
             differs={STDERR: "stack-trace"}, id="dropin-elect-missing-topic"),
    election("--election-type", "bogus", "--all-topic-partitions", differs=PARSE, id="dropin-elect-bad-type"),
    election("--all-topic-partitions", differs=PARSE, id="dropin-elect-no-type"),
    election("--election-type", "preferred", differs=PARSE, id="dropin-elect-no-partitions"),
    election("--election-type", "preferred", "--topic", "{orders}", differs=PARSE, id="dropin-elect-no-partition"),
    election("--election-type", "preferred", "--partition", "1", "--all-topic-partitions", differs=PARSE,
             id="dropin-elect-partition-without-topic"),
    election("--election-type", "preferred", "--topic", "{orders}", "--all-topic-partitions", "--partition", "0",
             differs=PARSE, id="dropin-elect-two-selections"),
    election("--election-type", "preferred", "--topic", "{orders}", "--partition", "x", differs=PARSE,
             id="dropin-elect-bad-partition"),
    election("--help", bootstrap=False, id="dropin-elect-help"),
]

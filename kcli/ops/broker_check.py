"""``kcli check broker``: any cluster checked against the proposals' rules, each rule PASS, FAIL or
UNSUPPORTED with its evidence (``kcli.model.RuleResult``).

The check works on a topic and a group of its own (``kcli-check-broker-<hex>``, the same name
for both): it creates the topic (2 partitions, then expanded to 3; replication factor
min(3, brokers); ``message.timestamp.after.max.ms=3600000`` so that KIP-937 has a bound on any
broker that knows the key), produces a few records to it, makes the group a consumer-protocol
group (two members join and leave, one offset commit) where the broker has KIP-1282, and deletes
both at the end. Nothing else is changed.

What a single run cannot do: restart a broker or move a leader (no admin request does either on
every cluster). Those two rules are checked across two runs: ``--save FILE`` keeps the topic and
group and writes what it saw; after a restart or a leader change, ``--baseline FILE`` compares
them (then deletes them). Without a baseline the two rules are UNSUPPORTED, saying so.

Times are compared with the client's clock: a broker time must fall within the request's round
trip, widened by ``--clock-skew`` (1s by default) each side.
"""

from __future__ import annotations

import json
import os
import secrets
import time
from typing import TYPE_CHECKING, Callable

from kcli.errors import BrokerRejected, OperationError, UnsupportedByBroker, UsageError
from kcli.kip937 import AFTER, LONG_MAX, effective_bound
from kcli.model import BrokerCheckReport, LayoutReading, RuleResult, TopicInfo
from kcli.specs import duration_arg
from kcli.times import format_ms

if TYPE_CHECKING:
    from kcli.admin import Admin

PASS, FAIL, UNSUPPORTED = "PASS", "FAIL", "UNSUPPORTED"
PREFIX = "kcli-check-broker-"
DEFAULT_SKEW = "1s"
PARTITIONS, EXPANDED = 2, 3
BATCH_END = 2                              # the last offset of the first batch (KAFKA-16310's answer)
AFTER_BOUND_MS = 3_600_000                 # set on the check's topic: KIP-937's future bound
BASELINE_SCHEMA = "kcli.check-broker-baseline/v1"
LIST_OFFSETS, METADATA, CG_HEARTBEAT, CG_DESCRIBE, DESCRIBE_TOPIC_PARTITIONS = 2, 3, 68, 69, 75
RETRIABLE = {"NOT_LEADER_OR_FOLLOWER", "UNKNOWN_TOPIC_OR_PARTITION", "LEADER_NOT_AVAILABLE",
             "NOT_ENOUGH_REPLICAS", "COORDINATOR_NOT_AVAILABLE", "NOT_COORDINATOR",
             "COORDINATOR_LOAD_IN_PROGRESS"}
# ListOffsets' special timestamps: (rule id, the version that introduced it, its meaning)
SPECIAL_TIMESTAMPS = {-1: ("list-offsets.latest", 1, "latest"), -2: ("list-offsets.earliest", 1, "earliest"),
                      -3: ("list-offsets.max-timestamp", 7, "max timestamp"),
                      -4: ("list-offsets.earliest-local", 8, "earliest local"),
                      -5: ("list-offsets.latest-tiered", 9, "latest tiered")}
# Every rule, in the order reported: (id, KIP, what it checks)
RULES = [
    ("creation-time.present", "KIP-1327", "CreationTimeMs on every partition, equal to the topic's creation"),
    ("creation-time.expansion", "KIP-1327", "an added partition's CreationTimeMs is the expansion's time"),
    ("creation-time.leader-change", "KIP-1327", "CreationTimeMs unchanged across a leader change (two runs)"),
    ("creation-time.restart", "KIP-1327", "CreationTimeMs and GroupCreationTimeMs unchanged across a restart (two "
                                          "runs)"),
    ("partition-age", "KIP-1327", "CreationTimeMs + PartitionAgeMs within the Metadata round trip"),
    ("group-creation-time", "KIP-1282", "GroupCreationTimeMs stamped once, not moved by rebalances or commits"),
    ("heartbeat-v2.layout", "KIP-1327", "ConsumerGroupHeartbeat v2 answered in accepted KIP-1327's layout (v1 + tagged "
                                        "NewPartitions), not the seed's positional GroupCreationTimeMs"),
    ("kip-937.batch", "KIP-937", "a batch with one record beyond the bound is rejected whole, naming it"),
    ("kip-734.ties", "KIP-734", "max-timestamp returns the first offset of the maximum among ties"),
    *[(rule, "ListOffsets", f"timestamp {ts} ({what}) answered as ListOffsets v{v}+ says")
      for ts, (rule, v, what) in SPECIAL_TIMESTAMPS.items()],
]
# A GroupCreationTimeMs any broker's clock could stamp: 2000-01-01 to 2100-01-01 UTC. An int64 a
# layout misreads lands far outside: the byte it starts at is Assignment's presence marker
# (1: 2^56 ms on; -1: negative) or a tag's.
PLAUSIBLE_MS = (946_684_800_000, 4_102_444_800_000)
TWO_RUNS = "needs two runs: --save FILE, then {what}, then --baseline FILE"


def skew_ms(text: str | None) -> int:
    """--clock-skew, checked before any request."""
    ms = duration_arg("--clock-skew", text or DEFAULT_SKEW)
    if ms < 0:
        raise UsageError(f"--clock-skew must not be negative, not '{text}'")
    return ms


def check_name() -> str:
    """The check's topic and group name: legal, not internal-looking, and new each run."""
    return PREFIX + secrets.token_hex(4)


def read_baseline(path: str) -> dict:
    """A --save file, read before any request (UsageError, exit 2, when it is not one)."""
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as exc:
        raise UsageError(f"Cannot read the baseline file '{path}': {exc}") from None
    if not isinstance(doc, dict) or doc.get("schema") != BASELINE_SCHEMA:
        raise UsageError(f"'{path}' is not a check broker baseline (schema {BASELINE_SCHEMA})")
    return doc


def check_save_path(path: str | None) -> None:
    """--save FILE: a new file that can be written (UsageError before any request). A dangling
    symlink counts as existing (the file would be created where it points); a path that cannot
    be written is found by creating the file and removing it at once, as only the system knows
    (permissions, a read-only mount, a name too long)."""
    if path is None:
        return
    if os.path.lexists(path):
        what = " (a symlink to a missing file)" if not os.path.exists(path) else ""
        raise UsageError(f"--save: '{path}' exists{what}; kcli never overwrites a baseline")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise UsageError(f"--save: cannot write in '{folder}'")
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
    except OSError as exc:
        raise UsageError(f"--save: cannot write '{path}': {exc.strerror}") from None
    os.unlink(path)


def broker_count(admin: Admin) -> int:
    """The brokers a run's topic is replicated over at most (``--dry-run``'s one request)."""
    return len(admin.broker_ids())


def dry_run_actions(name: str, brokers: int, baseline: dict | None) -> list[dict]:
    """What a run would create, change and delete, in order (``--dry-run``: nothing is sent but
    the Metadata that counts the brokers)."""
    rf = min(3, brokers)
    actions = [
        {"action": "create", "kind": "topic", "name": name,
         "detail": f"{PARTITIONS} partitions, replication factor {rf}, {AFTER}={AFTER_BOUND_MS}"},
        {"action": "alter", "kind": "topic", "name": name, "detail": f"{EXPANDED} partitions"},
        {"action": "produce", "kind": "topic", "name": name,
         "detail": "5 records to partition 0; a 3-record batch to partition 1 that must be rejected"},
        {"action": "create", "kind": "group", "name": name,
         "detail": "consumer protocol (KIP-1282 brokers only): 2 members join and leave, 1 offset commit; "
                   "1 more joins at ConsumerGroupHeartbeat v2 and leaves (brokers that advertise it)"},
        {"action": "delete", "kind": "topic", "name": name, "detail": "unless --save"},
        {"action": "delete", "kind": "group", "name": name, "detail": "unless --save"},
    ]
    if baseline is not None:
        actions += [{"action": "delete", "kind": kind, "name": baseline["topic"], "detail": "the baseline's"}
                    for kind in ("topic", "group")]
    return actions


class _Window:
    """The client-clock round trip of a request, widened by the allowed skew."""

    def __init__(self, skew: int, now: Callable[[], int]):
        self.skew, self.now = skew, now
        self.start = self.end = 0             # set on entering and leaving the window

    def __enter__(self):
        self.start = self.now()
        return self

    def __exit__(self, *exc):
        self.end = self.now()

    def holds(self, ms: int | None) -> bool:
        return ms is not None and self.start - self.skew <= ms <= self.end + self.skew

    def text(self) -> str:
        return f"[{format_ms(self.start)}, {format_ms(self.end)}] ±{self.skew} ms"


class BrokerCheck:
    def __init__(self, admin: Admin, name: str, skew: int, now: Callable[[], int] | None = None):
        self.admin, self.topic, self.group, self.skew = admin, name, name, skew
        self.now = now or (lambda: int(time.time() * 1000))
        self.results: dict[str, RuleResult] = {}
        self.kinds = {rule: kip for rule, kip, _ in RULES}
        self.created: list[str] = []            # "topic", "group": created, as the broker answered
        self.sent: list[str] = []               # the same, once the request creating it was sent
        self.members: set[str] = set()          # the group's members that joined and did not leave

    def result(self, rule: str, status: str, evidence: str, **data) -> None:
        self.results[rule] = RuleResult(rule, self.kinds[rule], status, evidence, data)

    def window(self) -> _Window:
        return _Window(self.skew, self.now)

    def version(self, api_key: int) -> int | None:
        return self.admin.advertised_version(api_key)

    # -- the topic ------------------------------------------------------------------------
    def settled(self, topic: str, partitions: int) -> TopicInfo:
        """The topic once it has ``partitions`` partitions, each with a leader (a new topic
        reaches every broker's metadata a moment after CreateTopics answers)."""
        last = None
        for _ in range(600):                             # bounded, and by the deadline
            try:
                t = self.admin.describe_topics([topic])[0]
                if len(t.partitions) >= partitions and all(p.leader is not None for p in t.partitions):
                    return t
            except OperationError as exc:
                last = exc
            if self.admin.settings.remaining_s() < 0.3:
                break
            time.sleep(0.05)
        raise OperationError(f"Topic '{topic}' did not get {partitions} partitions with leaders in time"
                             + (f": {last}" if last else ""))

    def produce(self, partition: int, records):
        for _ in range(100):                             # bounded: a new leader settling
            outcome = self.admin.produce_batch(self.topic, partition, records)
            if outcome.error not in RETRIABLE or self.admin.settings.remaining_s() < 0.5:
                return outcome
            time.sleep(0.1)
        return outcome

    def creation_rules(self) -> TopicInfo:
        brokers = self.admin.broker_ids()
        rf = min(3, len(brokers))
        configs = {AFTER: str(AFTER_BOUND_MS)}
        self.sent.append("topic")
        with self.window() as created:
            try:
                self.admin.create_topic(self.topic, PARTITIONS, rf, configs, None)
            except BrokerRejected as exc:            # before KIP-937 (Kafka 3.6) the key is unknown
                if exc.error.name != "INVALID_CONFIG":
                    raise
                self.admin.create_topic(self.topic, PARTITIONS, rf, {}, None)
        self.created.append("topic")
        first = self.settled(self.topic, PARTITIONS)
        with self.window() as expanded:
            self.admin.create_partitions(self.topic, EXPANDED, None)
        topic = self.settled(self.topic, EXPANDED)
        times = {p.partition: p.creation_time_ms for p in topic.partitions if p.creation_time_ms is not None}
        advertised = self.version(DESCRIBE_TOPIC_PARTITIONS)
        if len(times) < len(topic.partitions):
            reason = (f"DescribeTopicPartitions v{advertised} advertised, CreationTimeMs needs v1"
                      if advertised is not None else "no DescribeTopicPartitions advertised")
            for rule in ("creation-time.present", "creation-time.expansion"):
                self.result(rule, UNSUPPORTED, reason, describeTopicPartitionsVersion=advertised)
            return topic
        original = [times[p] for p in range(PARTITIONS)]
        before = [p.creation_time_ms for p in first.partitions[:PARTITIONS]]
        ok = len(set(original)) == 1 and created.holds(original[0])
        self.result("creation-time.present", PASS if ok else FAIL,
                    f"partitions 0-{PARTITIONS - 1}: {', '.join(_ms(v) for v in original)}; "
                    f"CreateTopics round trip {created.text()}",
                    creationTimesMs=original, roundTripMs=[created.start, created.end])
        added = times[PARTITIONS]
        ok = expanded.holds(added) and added >= original[0] and before == original
        self.result("creation-time.expansion", PASS if ok else FAIL,
                    f"partition {PARTITIONS}: {_ms(added)}; CreatePartitions round trip {expanded.text()}; "
                    f"partitions 0-{PARTITIONS - 1} {'unchanged' if before == original else 'changed: ' + str(before)}",
                    creationTimeMs=added, roundTripMs=[expanded.start, expanded.end],
                    originalBeforeMs=before, originalAfterMs=original)
        return topic

    def age_rule(self, topic: TopicInfo) -> None:
        v = self.version(METADATA)
        if v is None or v < 14:
            self.result("partition-age", UNSUPPORTED, f"Metadata v{v} advertised, PartitionAgeMs needs v14",
                        metadataVersion=v)
            return
        with self.window() as asked:
            ages = self.admin.partition_ages([self.topic])
        rows, ok = [], True
        for p in topic.partitions:
            age, created = ages.get((self.topic, p.partition)), p.creation_time_ms
            sums = None if age is None or age < 0 or created is None or created < 0 else created + age
            ok = ok and asked.holds(sums)
            rows.append(f"p{p.partition} {_ms(created)} + {age} ms")
        self.result("partition-age", PASS if ok else FAIL,
                    f"{'; '.join(rows)}; Metadata round trip {asked.text()}",
                    partitionAgesMs=[ages.get((self.topic, p.partition)) for p in topic.partitions],
                    roundTripMs=[asked.start, asked.end])

    # -- records: KIP-734, ListOffsets, KIP-937 -------------------------------------------
    def record_rules(self) -> None:
        base = self.now() - 60_000
        expected_max = base + 10
        sent = [[(base, b"k", b"0"), (expected_max, b"k", b"1"), (base + 5, b"k", b"2")],
                [(expected_max, b"k", b"3"), (base + 3, b"k", b"4")]]
        problems = [o.error for o in (self.produce(0, batch) for batch in sent) if o.error]
        listed = self.admin.advertised_version(LIST_OFFSETS)
        if problems:
            for rule, _, _ in SPECIAL_TIMESTAMPS.values():
                self.result(rule, FAIL, f"producing the check's records failed: {problems[0]}")
            self.result("kip-734.ties", FAIL, f"producing the check's records failed: {problems[0]}")
        else:
            self.list_offsets_rules(listed, expected_max)
        self.kip937_rule()

    def list_offsets_rules(self, listed: int | None, expected_max: int) -> None:
        answers = {}
        for ts, (rule, needed, what) in SPECIAL_TIMESTAMPS.items():
            if listed is None or listed < needed:
                self.result(rule, UNSUPPORTED, f"ListOffsets v{listed} advertised, {ts} ({what}) needs v{needed}",
                            listOffsetsVersion=listed)
                continue
            try:
                got = self.admin.list_offsets([(self.topic, 0)], ts)[0]
            except UnsupportedByBroker as exc:
                self.result(rule, UNSUPPORTED, str(exc), listOffsetsVersion=listed)
                continue
            answers[ts] = got
            expect, ok = _special_expectation(ts, got, expected_max)
            self.result(rule, PASS if ok else FAIL,
                        f"offset {got.offset}" + (f", timestamp {_ms(got.timestamp_ms)}" if ts == -3 else "")
                        + (f" ({got.error})" if got.error else "") + f"; expected {expect}",
                        offset=got.offset, timestampMs=got.timestamp_ms, listOffsetsVersion=listed)
        tie = answers.get(-3)
        if tie is None:
            self.result("kip-734.ties", UNSUPPORTED, f"ListOffsets v{listed} advertised, max-timestamp needs v7",
                        listOffsetsVersion=listed)
            return
        ok = tie.offset == 1 and tie.timestamp_ms == expected_max
        known = "; the last offset of the batch holding the maximum: KAFKA-16310 (fixed in Kafka 3.8)" \
            if tie.offset == BATCH_END else ""
        self.result("kip-734.ties", PASS if ok else FAIL,
                    f"offsets 1 and 3 hold the maximum {_ms(expected_max)} (batches 0-2 and 3-4); "
                    f"max-timestamp answered offset {tie.offset} at {_ms(tie.timestamp_ms)}; expected offset 1" + known,
                    offset=tie.offset, timestampMs=tie.timestamp_ms, tiedOffsets=[1, 3])

    def kip937_rule(self) -> None:
        rule = "kip-937.batch"
        entries = {e.name: e for rc in self.admin.describe_configs([("topic", self.topic)]) for e in rc.entries}
        if AFTER not in entries:
            self.result(rule, UNSUPPORTED, f"the broker has no {AFTER} (KIP-937, Kafka 3.6+)")
            return
        bound = effective_bound(entries, AFTER)
        if bound >= LONG_MAX // 2:
            self.result(rule, UNSUPPORTED, f"{AFTER} is unbounded on this topic", afterMaxMs=bound)
            return
        before = self.admin.list_offsets([(self.topic, 1)], -1)[0].offset
        now = self.now()
        bad = now + bound + AFTER_BOUND_MS          # one bound beyond it: no clock skew reaches it
        outcome = self.produce(1, [(now, b"k", b"ok-0"), (bad, b"k", b"late"), (now, b"k", b"ok-2")])
        after = self.admin.list_offsets([(self.topic, 1)], -1)[0].offset
        indexes = [i for i, _ in outcome.record_errors]
        text = " ".join(m for m in [outcome.message, *(m for _, m in outcome.record_errors)] if m)
        named = indexes == [1] or (not indexes and str(bad) in text)
        ok = outcome.error == "INVALID_TIMESTAMP" and after == before and named
        said = f"{outcome.error or 'appended at ' + str(outcome.base_offset)}"
        self.result(rule, PASS if ok else FAIL,
                    f"{AFTER}={bound}; record 1 of 3 at +{bound + AFTER_BOUND_MS} ms: {said}, "
                    f"record errors {indexes or 'none'}, log end {before} -> {after}"
                    + (f"; message: {text}" if text else ""),
                    afterMaxMs=bound, error=outcome.error, recordErrorIndexes=indexes,
                    logEndBefore=before, logEndAfter=after, message=text or None)

    # -- the group (KIP-1282) -------------------------------------------------------------
    def group_rule(self) -> int | None:
        rule = "group-creation-time"
        hb, cgd = self.version(CG_HEARTBEAT), self.version(CG_DESCRIBE)
        if hb is None or hb < 2 or cgd is None or cgd < 2:
            self.result(rule, UNSUPPORTED, f"ConsumerGroupHeartbeat v{hb} and ConsumerGroupDescribe v{cgd} "
                        "advertised, GroupCreationTimeMs needs v2 of both",
                        heartbeatVersion=hb, describeVersion=cgd)
            return None
        self.sent.append("group")
        with self.window() as joined:
            first = self.heartbeat(_member_id(), 0)
        self.created.append("group")
        if first.error:
            self.result(rule, FAIL, f"the first member could not join: {first.error}")
            return None
        stamped = first.group_creation_ms
        seen = [("first heartbeat", stamped), ("described", self.described())]
        second = self.heartbeat(_member_id(), 0)
        seen.append((f"second member joined ({second.error or 'epoch ' + str(second.member_epoch)})",
                     second.group_creation_ms))
        again = self.heartbeat(first.member_id, first.member_epoch)       # the rebalance reaches it
        seen += [("first member's next heartbeat", again.group_creation_ms), ("described", self.described())]
        for member in (first, second):
            self.heartbeat(member.member_id, -1)
        seen.append(("both left, described", self.described()))
        errors = self.admin.alter_group_offsets(self.group, {(self.topic, 0): 1})
        committed = next((e.name for e in errors.values() if e is not None), None)
        seen.append((f"offset commit ({committed or 'ok'}), described", self.described()))
        ok = joined.holds(stamped) and all(v == stamped for _, v in seen) and not committed
        self.result(rule, PASS if ok else FAIL,
                    f"stamped {_ms(stamped)}, first heartbeat round trip {joined.text()}; "
                    + "; ".join(f"{what}: {_ms(v)}" for what, v in seen[1:]),
                    groupCreationTimeMs=stamped, roundTripMs=[joined.start, joined.end],
                    seen=[{"step": what, "groupCreationTimeMs": v} for what, v in seen])
        return stamped

    def heartbeat(self, member: str, epoch: int):
        for _ in range(50):                               # bounded: a coordinator settling
            answer = self.admin.consumer_group_heartbeat(self.group, member, epoch,
                                                         [self.topic] if epoch == 0 else None)
            if epoch == -1:
                self.members.discard(member)
            elif not answer.error:
                self.members.add(answer.member_id or member)
            if answer.error not in RETRIABLE or self.admin.settings.remaining_s() < 0.5:
                return answer
            time.sleep(0.1)
        return answer

    # -- ConsumerGroupHeartbeat v2's layout (KIP-1327 as accepted, KIP-1282's seed) -------------
    def layout_rule(self) -> None:
        """One v2 join whose answer's bytes are read with both layouts; the broker speaks the one
        that reads them whole and consistently (kcli.protocol.heartbeat_layouts)."""
        rule = "heartbeat-v2.layout"
        advertised = self.admin.advertised_range(CG_HEARTBEAT)
        if advertised is None or advertised[1] < 2:
            said = "no ConsumerGroupHeartbeat" if advertised is None else \
                f"ConsumerGroupHeartbeat v{advertised[0]}-{advertised[1]}"
            self.result(rule, UNSUPPORTED, f"{said} advertised: the two layouts differ in v2 only",
                        heartbeatVersions=None if advertised is None else list(advertised))
            return
        member = _member_id()
        if "group" not in self.sent:
            self.sent.append("group")
        for _ in range(50):                               # bounded: a coordinator settling
            readings = {r.layout: r for r in self.admin.consumer_group_heartbeat_layouts(self.group, member,
                                                                                         [self.topic])}
            error = _join_error(readings)
            if error not in RETRIABLE or self.admin.settings.remaining_s() < 0.5:
                break
            time.sleep(0.1)
        if error is None and "group" not in self.created:
            self.created.append("group")
        self.members.add(member)                # whatever the layouts read: it leaves
        self.heartbeat(member, -1)
        status, evidence, data = layout_verdict(readings, member)
        self.result(rule, status, evidence, heartbeatVersions=list(advertised), **data)

    def described(self) -> int | None:
        return (self.admin.group_creation_times([self.group]) or {}).get(self.group)

    # -- two runs -------------------------------------------------------------------------
    def baseline_rules(self, baseline: dict | None) -> None:
        if baseline is None:
            self.result("creation-time.leader-change", UNSUPPORTED,
                        TWO_RUNS.format(what="a leader change (kcli forces none)"))
            self.result("creation-time.restart", UNSUPPORTED,
                        TWO_RUNS.format(what="a broker restart (kcli restarts none)"))
            return
        topic, saved = baseline["topic"], baseline["partitions"]
        try:
            now = {str(p.partition): p for p in self.admin.describe_topics([topic])[0].partitions}
        except OperationError as exc:
            for rule in ("creation-time.leader-change", "creation-time.restart"):
                self.result(rule, FAIL, f"the baseline's topic '{topic}': {exc}")
            return
        if any(p.creation_time_ms is None for p in now.values()):
            for rule in ("creation-time.leader-change", "creation-time.restart"):
                self.result(rule, UNSUPPORTED, "the broker reports no CreationTimeMs (DescribeTopicPartitions v1)")
            return
        same = all(str(k) in now and now[str(k)].creation_time_ms == v["creationTimeMs"] for k, v in saved.items())
        moved = [k for k, v in saved.items() if k in now and _moved(v, now[k])]
        creation = ", ".join(f"p{k} {_ms(v['creationTimeMs'])} -> "
                             f"{_ms(now[k].creation_time_ms) if k in now else 'gone'}"
                             for k, v in sorted(saved.items()))
        epochs = ", ".join(f"p{k} leader {v['leader']}/epoch {v['leaderEpoch']} -> "
                           f"{now[k].leader}/epoch {now[k].leader_epoch}" for k, v in sorted(saved.items()) if k in now)
        if not same:
            status = FAIL
        else:
            status = PASS if moved else UNSUPPORTED
        self.result("creation-time.leader-change", status,
                    f"{creation}; {epochs}" + ("" if moved or not same else "; no leader changed between the runs"),
                    leaderChanged=moved)
        group_then = baseline.get("groupCreationTimeMs")
        group_now = (self.admin.group_creation_times([baseline["group"]]) or {}).get(baseline["group"]) \
            if group_then is not None else None
        group_same = group_then is None or group_now == group_then
        self.result("creation-time.restart", PASS if same and group_same else FAIL,
                    f"{creation}" + (f"; group {_ms(group_then)} -> {_ms(group_now)}" if group_then is not None else "")
                    + f"; compared with the run saved at {_ms(baseline.get('savedMs'))} (kcli cannot see a "
                    "restart itself: restart the brokers between the runs)",
                    groupCreationTimeMs=group_now)

    def baseline_document(self, topic: TopicInfo | None, group_ms: int | None) -> dict:
        t = self.admin.describe_topics([self.topic])[0] if topic is not None else None
        return {"schema": BASELINE_SCHEMA, "topic": self.topic, "group": self.group, "savedMs": self.now(),
                "partitions": {str(p.partition): {"creationTimeMs": p.creation_time_ms, "leader": p.leader,
                                                  "leaderEpoch": p.leader_epoch} for p in (t.partitions if t else [])},
                "groupCreationTimeMs": group_ms}

    def clean_up(self, names: list[tuple[str, bool]]) -> tuple[list[str], list[str]]:
        """Deletes each (name, has_group) group and topic; (deleted, kept), each kept one with
        why. One that is not there (its creating request went out unanswered and did nothing)
        is neither. Every deletion is tried, whatever became of the one before."""
        deleted: list[str] = []
        kept: list[str] = []
        for member in sorted(self.members):     # a member still in keeps the group from deletion
            try:
                self.admin.consumer_group_heartbeat(self.group, member, -1, None)
            except (OperationError, BrokerRejected):
                pass                                # the group's deletion says what became of it
        for name, has_group in names:
            for kind, gone, delete in (("group", "GROUP_ID_NOT_FOUND", self.admin.delete_groups),
                                       ("topic", "UNKNOWN_TOPIC_OR_PART", self.admin.delete_topics)):
                if kind == "group" and not has_group:
                    continue
                try:
                    error = delete([name]).get(name)
                except (OperationError, BrokerRejected) as exc:
                    kept.append(f"{kind} {name} ({exc})")
                    continue
                if error is None:
                    deleted.append(f"{kind} {name}")
                elif error.name != gone:
                    kept.append(f"{kind} {name} ({error.name})")
        return deleted, kept


def run(admin: Admin, name: str, skew: int, baseline: dict | None = None, save: str | None = None,
        now: Callable[[], int] | None = None) -> BrokerCheckReport:
    """The whole check; the check's topic and group (and the baseline's) deleted at the end
    unless saved to ``save``. A step that cannot go on (a request refused outright, or left
    unanswered until the command's deadline) ends the run with its error after the clean-up,
    which has a deadline of its own (--timeout again): what it could not delete is named."""
    check = BrokerCheck(admin, name, skew, now)
    topic = group_ms = None
    report = BrokerCheckReport(name, name, [], baseline=None if baseline is None else baseline.get("file"))
    failure: BaseException | None = None
    try:
        check.baseline_rules(baseline)
        topic = check.creation_rules()
        check.age_rule(topic)
        check.record_rules()
        group_ms = check.group_rule()
        check.layout_rule()
        if save is not None:
            with open(save, "x", encoding="utf-8") as f:
                json.dump(check.baseline_document(topic, group_ms), f, indent=2)
            report.saved = save
    except BaseException as exc:
        failure = exc
        raise
    finally:
        report.created = [f"{kind} {name}" for kind in check.created]
        doomed = [] if report.saved is not None or not check.sent else [(name, "group" in check.sent)]
        if baseline is not None:
            doomed.append((baseline["topic"], baseline.get("groupCreationTimeMs") is not None))
        with admin.settings.own_deadline(admin.settings.timeout_s):
            report.deleted, kept = check.clean_up(doomed)
        report.kept = report.created if report.saved is not None else []
        if kept and (failure is None or isinstance(failure, Exception)):
            what = f"check broker could not delete what it created, kept: {'; '.join(kept)}"
            raise OperationError(f"{failure}; {what}" if failure is not None else what) from failure
    report.rules = [check.results[rule] for rule, _, _ in RULES if rule in check.results]
    return report


def _special_expectation(ts: int, got, expected_max: int) -> tuple[str, bool]:
    """What a fresh partition 0 holding offsets 0-4 (log start 0, end 5, no tiered storage)
    answers for each special timestamp."""
    if got.error:
        return "an answer", False
    if ts == -1:
        return "5 (the log end)", got.offset == 5
    if ts == -2:
        return "0 (the log start)", got.offset == 0
    if ts == -3:      # which offset among ties is kip-734.ties' rule
        return f"the maximum {_ms(expected_max)}, at an offset of the log", (
            got.timestamp_ms == expected_max and 0 <= got.offset < 5)
    if ts == -4:
        return "0 (the local log start)", got.offset == 0
    return "-1 (nothing tiered) or an offset below the log end", got.offset == -1 or 0 <= got.offset < 5


def _moved(saved: dict, now) -> bool:
    return saved.get("leader") != now.leader or (
        now.leader_epoch is not None and saved.get("leaderEpoch") is not None
        and now.leader_epoch > saved["leaderEpoch"])


def _member_id() -> str:
    """A KIP-1082 member id, as a client makes one (a Uuid's 22 base64 characters)."""
    import base64

    return base64.urlsafe_b64encode(secrets.token_bytes(16)).decode().rstrip("=")


def layout_verdict(readings: dict[str, LayoutReading], member: str) -> tuple[str, str, dict]:
    """heartbeat-v2.layout's status, evidence and data from the layouts' readings of the answer
    to ``member``'s v2 join: the broker speaks the one layout that reads it whole and
    consistently (``misread``)."""
    problems = {name: misread(r, member) for name, r in readings.items()}
    accepted, seed = readings["accepted"], readings["seed"]
    found = [name for name, problem in problems.items() if problem is None]
    error = _join_error(readings)
    data = {"layout": found[0] if len(found) == 1 and error is None else None,
            "readings": {name: {"bytesLeft": r.left, "misread": problems[name],
                                "groupCreationTimeMs": r.group_creation_ms, "newPartitions": r.new_partitions}
                         for name, r in readings.items()}}
    if error is not None:
        return FAIL, f"the v2 join failed: {error}", data
    if found == ["accepted"]:
        created = "absent" if _absent(accepted.group_creation_ms) else _ms(accepted.group_creation_ms)
        new = "absent" if accepted.new_partitions is None else accepted.new_partitions
        return PASS, (f"accepted layout: read whole as v1 + tagged NewPartitions (tag 0: {new}); tagged "
                      f"GroupCreationTimeMs (tag 1282): {created}; partitions {accepted.partitions}; "
                      f"the seed's positional layout misreads it: {problems['seed']}"), data
    if found == ["seed"]:
        return FAIL, (f"seed's positional layout (GroupCreationTimeMs {_ms(seed.group_creation_ms)} before "
                      f"Assignment): a client of accepted KIP-1327 misreads it: {problems['accepted']}"), data
    said = "both layouts read it whole" if found else "neither layout reads it"
    return FAIL, f"{said}: accepted: {problems['accepted'] or 'read'}; seed: {problems['seed'] or 'read'}", data


def misread(r: LayoutReading, member: str) -> str | None:
    """What shows that a layout misread the answer to ``member``'s join (None: nothing): bytes it
    cannot read or leaves over, fields that cannot be what the broker sent. The seed's layout
    must read a GroupCreationTimeMs in PLAUSIBLE_MS; the accepted one, when it reads kcli's tag
    1282 at all. Whether the time is the right one is group-creation-time's rule, not this one's:
    a broker whose clock is off speaks its layout all the same."""
    if r.left < 0:
        return "cannot decode it"
    if r.left > 0:
        return f"{r.left} bytes left over"
    if r.member_id != member:
        return f"member id {r.member_id!r}, not the one that joined"
    if r.member_epoch is None or r.member_epoch < 1 or not r.heartbeat_interval_ms or r.heartbeat_interval_ms < 1:
        return f"member epoch {r.member_epoch}, heartbeat interval {r.heartbeat_interval_ms} ms"
    created = r.group_creation_ms
    if (r.layout == "seed" or not _absent(created)) and (created is None or not PLAUSIBLE_MS[0] <= created
                                                             < PLAUSIBLE_MS[1]):
        return f"GroupCreationTimeMs {created}, not a time of any broker's clock (2000-2100)"
    if any(not 0 <= p < EXPANDED for p in r.partitions) or len(set(r.partitions)) < len(r.partitions):
        return f"partitions {r.partitions} of a {EXPANDED}-partition topic"
    return None


def _join_error(readings: dict[str, LayoutReading]) -> str | None:
    """The join's error code, which every layout reads alike (it precedes where they differ)."""
    return next((r.error for r in readings.values() if r.left >= 0), None)


def _absent(ms: int | None) -> bool:
    return ms is None or ms == -1


def _ms(ms: int | None) -> str:
    return "-" if ms is None or ms < 0 else format_ms(ms)

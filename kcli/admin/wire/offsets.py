"""Log offsets and record times on kcli's own connections: ListOffsets per leader (every special
timestamp, KIP-734's max timestamp included) and the time of the next record at an offset, from
one bounded Fetch per leader (per FETCH_PARTITIONS of its partitions) read as a read_committed
consumer reads."""

from __future__ import annotations

import time

from kcli.admin.wire.metadata import UNKNOWN_TOPIC_OR_PARTITION, MetadataRequests
from kcli.errors import UnreadableAnswer, UnsupportedByBroker
from kcli.model import HELD_BY_TRANSACTION, OffsetInfo, RecordTime

LIST_OFFSETS_ROUNDS = 4                         # the first ask and up to 3 after a leader change
FETCH_PARTITION_BYTES = 4096          # per partition: the next record's batch, or its first 4 KiB
FETCH_RESPONSE_BYTES = 16 << 20       # per Fetch answer; Kafka caps it at fetch.max.bytes (55 MiB)
# Partitions per Fetch: a leader of many partitions is asked in batches, each answer read and let
# go before the next is asked for (40k partitions in one answer: peak RSS 6 MiB higher, 129 vs
# 123 MiB for a --max-age reset dry run; the decoded answer grows with its partitions).
FETCH_PARTITIONS = 10_000
# Fetch rounds beyond one per partition for partitions whose answers held only transaction markers
# and aborted batches (each round reads FETCH_PARTITION_BYTES further): past that much aborted
# data the next record's time is reported unknown rather than read on without end.
ROUNDS_PAST_SKIPPED = 16
# A partition whose next record lay in a batch the answer cut short (past FETCH_PARTITION_BYTES,
# or the answer's own byte limit) is asked again for that whole batch, up to this size (a whole
# answer's); a bigger batch gives a bound (the batch's MaxTimestamp).
BATCH_BYTES_ASKED_AGAIN = FETCH_RESPONSE_BYTES
READ_COMMITTED = 1


class OffsetRequests(MetadataRequests):
    # -- log offsets: librdkafka's ListOffsets grows faster than the partitions (0.9 s at 10k and
    # 10.3 s at 40k partitions, bench/reset_scale.py); one request per leader here is linear.
    # The version each special timestamp needs, and what needs it:
    LIST_OFFSETS_NEEDS = {-3: (7, "--max-timestamp (KIP-734)"), -4: (8, "--time -4"),
                          -5: (9, "--time -5"), -6: (11, "--time -6")}

    def list_offsets(self, partitions: list[tuple[str, int]], timestamp: int,
                     isolation_level: int = 0) -> list[OffsetInfo]:
        """ListOffsets to each partition's leader, one request per leader: -1 latest, -2 earliest,
        -3 max timestamp (KIP-734), -4/-5/-6 the tiered-storage offsets, else the first offset at
        or after ``timestamp`` (epoch ms); ``isolation_level`` 1 (read_committed, v2+): latest
        is the last stable offset. The partitions a leader change answered with a
        retriable error are asked again after a new Metadata, a few times within the deadline;
        an error, or no answer from a leader in time, is the partition's ``error``."""
        from kafka.errors import for_code

        from kcli.admin.wire.connection import WireError, WireUnreadable

        Req = self.proto.ListOffsetsRequest

        needed, what = self.LIST_OFFSETS_NEEDS.get(timestamp, (1, ""))
        version = self.max_version(Req)
        if version is None or version < needed:
            raise UnsupportedByBroker(f"The broker does not support ListOffsets v{needed}, which {what} needs"
                                      if what else "The broker does not support ListOffsets v1+")
        P = Req.ListOffsetsTopic.ListOffsetsPartition
        found: dict[tuple[str, int], OffsetInfo] = {}
        pending = list(dict.fromkeys(partitions))
        for attempt in range(LIST_OFFSETS_ROUNDS):
            leaders = self.partition_leaders(sorted({t for t, _ in pending}), refresh=attempt > 0)
            by_leader: dict[int, dict[str, list[int]]] = {}
            for t, p in pending:
                leader = leaders.get(t, {}).get(p, -1)
                if leader is None or leader < 0:
                    error = ("There is no leader for this topic-partition" if leader is None
                             else for_code(UNKNOWN_TOPIC_OR_PARTITION).description)
                    found[(t, p)] = OffsetInfo(t, p, -1, error=error)
                else:
                    by_leader.setdefault(leader, {}).setdefault(t, []).append(p)
            retry = []
            for leader, topic_parts in sorted(by_leader.items()):
                req = Req(version=version, replica_id=-1, isolation_level=isolation_level,
                          timeout_ms=self.settings.timeout_ms, topics=[
                              Req.ListOffsetsTopic(name=t, partitions=[
                                  P(partition_index=p, current_leader_epoch=-1, timestamp=timestamp)
                                  for p in ps]) for t, ps in topic_parts.items()])
                try:
                    resp = self._wire.send(req, leader)
                except WireUnreadable as exc:
                    raise UnreadableAnswer(exc.answer, str(exc), type(req).__name__) from None
                except WireError as exc:
                    error = f"No answer from broker {leader}: {exc}"
                    for t, ps in topic_parts.items():
                        found.update({(t, p): OffsetInfo(t, p, -1, error=error, unanswered=True) for p in ps})
                    continue
                for t in resp.topics:
                    for p in t.partitions:
                        tp = (t.name, p.partition_index)
                        if p.error_code and for_code(p.error_code).retriable and attempt + 1 < LIST_OFFSETS_ROUNDS:
                            retry.append(tp)
                        elif p.error_code:
                            found[tp] = OffsetInfo(*tp, -1, error=for_code(p.error_code).description)
                        else:
                            epoch = getattr(p, "leader_epoch", -1)           # v4+
                            found[tp] = OffsetInfo(*tp, p.offset, p.timestamp if timestamp == -3 or timestamp >= 0
                                                   else None, epoch if epoch >= 0 else None)
            if not retry or self.settings.remaining_s() < 0.2:
                for tp in retry:
                    found.setdefault(tp, OffsetInfo(*tp, -1, error="The leader did not settle in time"))
                break
            pending = retry
            time.sleep(0.1 * (attempt + 1))
        return sorted(found.values(), key=lambda o: (o.topic, o.partition))

    def replica_log_ends(self, wanted: dict[int, list[tuple[str, int]]]) -> dict[tuple[str, int, int], int | None]:
        """The log end offset of each broker's own replica of its partitions (``wanted``: broker ->
        partitions), a follower's too: ListOffsets (latest) to that broker as Kafka's debugging
        replica (replica id -2), which a follower answers from its local log and which reads up
        to the log end, not the high watermark (Kafka's ListOffsets for a replica id other than
        a consumer's). (topic, partition, broker) -> offset; None where the broker gave none."""
        from kcli.admin.wire.connection import WireError

        Req = self.proto.ListOffsetsRequest
        P = Req.ListOffsetsTopic.ListOffsetsPartition
        version = self.max_version(Req)
        found: dict[tuple[str, int, int], int | None] = {}
        for broker, parts in sorted(wanted.items()):
            found.update({(t, p, broker): None for t, p in parts})
            if version is None or not parts:
                continue
            by_topic: dict[str, list[int]] = {}
            for t, p in parts:
                by_topic.setdefault(t, []).append(p)
            req = Req(version=min(version, 7), replica_id=-2, isolation_level=0,
                      timeout_ms=self.settings.timeout_ms, topics=[
                          Req.ListOffsetsTopic(name=t, partitions=[
                              P(partition_index=p, current_leader_epoch=-1, timestamp=-1) for p in ps])
                          for t, ps in sorted(by_topic.items())])
            try:
                resp = self._wire.send(req, broker)
            except WireError:
                continue
            for t in resp.topics:
                for p in t.partitions:
                    if not p.error_code and p.offset >= 0 and (t.name, p.partition_index, broker) in found:
                        found[(t.name, p.partition_index, broker)] = p.offset
        return found

    # -- lag in time: the next record's timestamp, one bounded Fetch per leader ----------
    def record_times(self, wanted: list[tuple[str, int, int]],
                     leaders: dict[tuple[str, int], int | None]) -> dict[tuple[str, int, int], RecordTime]:
        """The first record at or after each (topic, partition, offset) of ``wanted`` that a
        read_committed consumer positioned there reads (transaction markers and aborted
        records are passed over, as it passes over them): one Fetch per leader and
        FETCH_PARTITIONS of its partitions, at most FETCH_PARTITION_BYTES of each partition
        (records decoded by kafka-python's record reader). A partition appears once per request,
        so a partition wanted at several offsets takes one more request per offset beyond the
        first (by layers). In the next round, up to BATCH_BYTES_ASKED_AGAIN: a partition the
        broker answered without data is asked for twice the bytes (Kafka answers nothing for a
        partition whose first batch is larger than it may return there, unless it is the
        answer's first partition, KIP-74, or when the answer's byte limit was reached); one whose
        record lay in a batch cut short is asked for that whole batch; one whose answer held only
        markers and aborted records is asked past them. So the time is exact however many
        partitions share a Fetch, the rounds growing with the batches' size, not with the
        partitions' count; a bound only for a batch larger than a whole answer. Needs
        Fetch v4+ (every Kafka 4 broker), sent at v12 at most (topics by name)."""
        from kafka.errors import for_code
        from kafka.protocol.consumer.fetch import FetchRequest as Req

        version = self.max_version(Req)
        if version is None or version < 4:
            raise UnsupportedByBroker("The broker does not support Fetch v4+, which lag in time needs")
        version = min(version, 12)
        layers: list[dict[tuple[str, int], int]] = []
        for t, p, offset in dict.fromkeys(wanted):
            layer = next((lay for lay in layers if (t, p) not in lay), None)
            if layer is None:
                layers.append(layer := {})
            layer[(t, p)] = offset
        found: dict[tuple[str, int, int], RecordTime] = {}
        for layer in layers:
            # per partition: (the offset asked about, where the next Fetch reads from: past the
            # markers and aborted batches a previous answer held, the bytes it asks for)
            pending = {tp: (o, o, FETCH_PARTITION_BYTES) for tp, o in layer.items()}
            for _ in range(len(layer) + ROUNDS_PAST_SKIPPED):      # bounded: see ROUNDS_PAST_SKIPPED
                answered = 0
                by_node: dict[int, list[tuple[str, int]]] = {}
                for tp, (offset, _, _) in pending.items():
                    node = leaders.get(tp)
                    if node is None:
                        found[(*tp, offset)] = RecordTime(*tp, offset, error="no leader")
                    else:
                        by_node.setdefault(node, []).append(tp)
                for node, batch in ((node, tps[i:i + FETCH_PARTITIONS]) for node, tps in by_node.items()
                                    for i in range(0, len(tps), FETCH_PARTITIONS)):
                    resp = self.send(_fetch_request(Req, version, [(tp, *pending[tp][1:]) for tp in batch]), node)
                    for topic in resp.responses:
                        for part in topic.partitions:
                            tp = (topic.topic, part.partition_index)
                            if tp not in pending:
                                continue
                            offset, start, size = pending[tp]
                            rt = _record_time(tp, offset, start, size, part, for_code)
                            if isinstance(rt, tuple):           # read on from there, that much
                                pending[tp] = (offset, *rt)
                                answered += 1
                            elif rt is not None:
                                found[(*tp, offset)] = rt
                                answered += 1
                            elif size < BATCH_BYTES_ASKED_AGAIN:  # no data: twice the bytes next time
                                pending[tp] = (offset, start, min(2 * size, BATCH_BYTES_ASKED_AGAIN))
                                answered += 1
                    del resp                            # let go before the next batch is asked for
                pending = {tp: o for tp, o in pending.items() if (*tp, o[0]) not in found}
                if not pending or not answered:
                    break
            for tp, (offset, start, _) in pending.items():
                found[(*tp, offset)] = RecordTime(*tp, offset, error="the broker returned no records" if start == offset
                                                  else f"only transaction markers and aborted records "
                                                       f"from offset {offset} to {start}, read no further")
        return found


def _fetch_request(Req, version: int, items: list[tuple[tuple[str, int], int, int]]):
    """A sessionless Fetch (session 0, epoch -1: Kafka's FetchMetadata.LEGACY) that does not wait,
    read committed, as a read_committed consumer at each offset: records up to the last stable
    offset, with the aborted transactions among them."""
    topics: dict[str, list] = {}
    for (t, p), offset, size in items:
        topics.setdefault(t, []).append(Req.FetchTopic.FetchPartition(
            partition=p, current_leader_epoch=-1, fetch_offset=offset, last_fetched_epoch=-1,
            log_start_offset=-1, partition_max_bytes=size))
    return Req(version=version, replica_id=-1, max_wait_ms=0, min_bytes=0,
               max_bytes=FETCH_RESPONSE_BYTES, isolation_level=READ_COMMITTED, session_id=0,
               session_epoch=-1, topics=[Req.FetchTopic(topic=t, partitions=ps) for t, ps in topics.items()],
               forgotten_topics_data=[], rack_id="")


def _record_time(tp: tuple[str, int], offset: int, start: int, size: int, part,
                 for_code) -> RecordTime | tuple[int, int] | None:
    """One partition of a Fetch answer (read from ``start``, ``size`` bytes asked) as a
    RecordTime for ``offset``; None when it came without data while records lie at or after
    ``start`` (ask again); (where to read on from, the bytes to ask) when the answer held only
    markers and aborted records before it, or cut short the batch holding the record."""
    if part.error_code:
        return RecordTime(*tp, offset, error=for_code(part.error_code).message)
    hw = part.high_watermark
    stable = part.last_stable_offset if 0 <= part.last_stable_offset < hw else hw
    if start >= stable:
        if start >= hw:                  # nothing a consumer will read: caught up
            return RecordTime(*tp, offset, high_watermark=hw)
        return RecordTime(*tp, offset, high_watermark=hw,
                          error=f"{HELD_BY_TRANSACTION} {stable}")
    if not part.records:
        return None
    from kafka.errors import CorruptRecordError

    aborted = [(a.producer_id, a.first_offset) for a in part.aborted_transactions or ()]
    try:
        kind, ts, at, appended = next_record(part.records, start, aborted)
    except CorruptRecordError as exc:
        return RecordTime(*tp, offset, high_watermark=hw, error=f"corrupt record batch: {exc}")
    if kind == "exact":
        return RecordTime(*tp, offset, timestamp_ms=ts, record_offset=at, high_watermark=hw,
                          log_append_time=appended)
    if kind == "bound" and at is not None and at <= BATCH_BYTES_ASKED_AGAIN and (
            at > size or len(part.records) < size):
        return start, max(size, at)      # the whole batch: more than was asked, or the answer's limit cut it
    if kind == "bound":
        return RecordTime(*tp, offset, bound_ms=ts, high_watermark=hw, log_append_time=appended)
    if kind == "notime":
        return RecordTime(*tp, offset, record_offset=at, high_watermark=hw,
                          error="the record has no timestamp")
    if kind == "skipped" and at is not None:       # markers and aborted batches up to ``at``
        return RecordTime(*tp, offset, high_watermark=hw) if at >= stable else (at, FETCH_PARTITION_BYTES)
    return RecordTime(*tp, offset, high_watermark=hw,
                      error=f"no record at or after offset {start} in the first "
                            f"{FETCH_PARTITION_BYTES} bytes read")


def next_record_time(records: bytes, offset: int,
                     aborted: list[tuple[int, int]] | None = None) -> tuple[str, int | None, int | None]:
    """next_record without the batch's timestamp type."""
    return next_record(records, offset, aborted)[:3]


def next_record(records: bytes, offset: int,
                aborted: list[tuple[int, int]] | None = None) -> tuple[str, int | None, int | None, bool | None]:
    """The first data record at or after ``offset`` in a Fetch answer's record bytes, read with
    kafka-python's record reader: ("exact", its timestamp, its offset); ("bound", MaxTimestamp of
    its batch, the bytes from the start of ``records`` to the end of that batch) when the batch
    was cut short before that record (Kafka cuts the last batch at the partition's byte limit)
    or is compressed and cut; ("notime", None, its offset) for a
    record without a timestamp (-1, or message format v0); ("skipped", None, the offset after
    them) when these bytes hold, at or after ``offset``, only whole control batches (transaction
    markers) and aborted batches; ("none", None, None) when they hold no such record otherwise.
    A LogAppendTime batch gives every record its MaxTimestamp: exact.

    ``aborted``: the Fetch answer's aborted transactions, (producer id, first offset), read
    committed as Kafka's consumer does (its CompletedFetch): a transactional batch of a producer
    whose aborted transaction began at or before the batch's last offset is skipped, until that
    producer's abort marker."""
    from kafka.record import MemoryRecords
    from kafka.record.default_records import DefaultRecordBatch

    upcoming = sorted(aborted or (), key=lambda a: a[1])
    aborting: set[int] = set()
    skipped_to = None
    batches = MemoryRecords(records)
    for batch in batches:                                  # the complete batches
        if batch.magic >= 2:
            while upcoming and upcoming[0][1] <= batch.last_offset:
                aborting.add(upcoming.pop(0)[0])
            if batch.is_control_batch:
                if batch.producer_id in aborting and next(iter(batch)).abort:
                    aborting.discard(batch.producer_id)
            if batch.last_offset < offset:
                continue
            if batch.is_control_batch or (batch.is_transactional and batch.producer_id in aborting):
                skipped_to = batch.last_offset + 1
                continue
        for record in batch:
            if record.offset >= offset:
                if record.timestamp is None or record.timestamp < 0:
                    return "notime", None, record.offset, None
                return "exact", record.timestamp, record.offset, record.timestamp_type == 1
    rest = records[batches.valid_bytes():]
    if len(rest) < DefaultRecordBatch.HEADER_STRUCT.size:
        return ("none", None, None, None) if skipped_to is None else ("skipped", None, skipped_to, None)
    cut = DefaultRecordBatch(rest)                         # its header is whole: read it
    while upcoming and upcoming[0][1] <= cut.last_offset:
        aborting.add(upcoming.pop(0)[0])
    if cut.magic != 2 or cut.last_offset < offset or cut.is_control_batch or (
            cut.is_transactional and cut.producer_id in aborting):
        return ("none", None, None, None) if skipped_to is None else ("skipped", None, skipped_to, None)
    if cut.timestamp_type == DefaultRecordBatch.LOG_APPEND_TIME:
        return "exact", cut.max_timestamp, None, True     # which record: not read
    if cut.compression_type == DefaultRecordBatch.CODEC_NONE:
        from kafka.errors import CorruptRecordError

        try:
            for record in cut:                             # the records before the cut
                if record.offset >= offset:
                    if record.timestamp < 0:
                        return "notime", None, record.offset, None
                    return "exact", record.timestamp, record.offset, False
        except CorruptRecordError:                         # reached the cut
            pass
    return "bound", cut.max_timestamp, batches.valid_bytes() + cut.size_in_bytes, False

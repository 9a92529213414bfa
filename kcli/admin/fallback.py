"""Never worse than librdkafka: the one rule for a broker answer kcli's own client cannot read.

kcli sends most reads on its own connection (``kcli.admin.wire``, kafka-python's codec), which is
stricter than librdkafka: a broker (or a mock, a proxy) whose answer that codec cannot decode, or
with which it cannot negotiate, raises
``kcli.errors.UnreadableAnswer``. Then:

- a call librdkafka can serve (``@or_librdkafka``) is served by librdkafka, with one ``Warn:``
  line per command naming the answer that could not be read;
- a KIP-only answer (``@or_unavailable``: CreationTimeMs, PartitionAgeMs, GroupCreationTimeMs)
  is reported as for a broker too old to give it, with a ``Warn:`` line naming that answer.

Any other failure (no connection, a timeout, an error code) is not retried elsewhere.
``LibrdkafkaReads`` holds the librdkafka side of each ``@or_librdkafka`` call.
"""

from __future__ import annotations

import functools
import time

from kcli.datatypes import replace
from kcli.errors import (AUTHORIZATION_FAILED, BrokerRejected, OperationError, UnreadableAnswer, UnsupportedByBroker,
                         not_authorized)
from kcli.model import (BrokerError, BrokerInfo, ClusterDescription, CommittedOffset, ConfigEntry, OffsetInfo,
                        PartitionInfo, ResourceConfig, TopicInfo)

TYPE_CHECKING = False                 # typing's, without importing typing (start-up)
if TYPE_CHECKING:
    from typing import Any, Callable, TypeVar

    from confluent_kafka.admin import AdminClient

    from kcli.admin.settings import ClientSettings
    from kcli.errors import Answer

    Method = TypeVar("Method", bound=Callable[..., Any])

FALLBACK = "using librdkafka"


def or_librdkafka(fallback: str, kip_only: dict[str, str] | None = None) -> Callable[[Method], Method]:
    """The decorated KafkaAdmin method, or, when kcli's own client cannot read the broker's
    answer, the method named ``fallback`` (same arguments) after the command's one Warn line.
    ``kip_only``: {API name: the KIP field only its answer carries}; when that answer is the one
    that could not be read, the Warn line (once per answer) says the field is unavailable."""
    def wrap(method: Method) -> Method:
        @functools.wraps(method)
        def call(self, *args, **kwargs):
            try:
                return method(self, *args, **kwargs)
            except UnreadableAnswer as exc:
                lost = (kip_only or {}).get(exc.answer.api)
                if lost:
                    self.unreadable(exc, f"{lost} unavailable, {FALLBACK}")
                else:
                    self.unreadable(exc, FALLBACK, once="fallback")
            return getattr(self, fallback)(*args, **kwargs)
        return call  # type: ignore[return-value]  # functools.wraps: the method's own signature
    return wrap


def or_unavailable(what: str, instead: Callable[[UnreadableAnswer], Any]) -> Callable[[Method], Method]:
    """The decorated KIP-only method, or ``instead(exc)`` (what an old broker's answer gives, or
    raises) when kcli's own client cannot read the broker's answer: ``what`` is unavailable."""
    def wrap(method: Method) -> Method:
        @functools.wraps(method)
        def call(self, *args, **kwargs):
            try:
                return method(self, *args, **kwargs)
            except UnreadableAnswer as exc:
                result = instead(exc)           # may raise, as for an old broker: that line names the answer
                self.unreadable(exc, f"{what} unavailable")
                return result
        return call  # type: ignore[return-value]  # functools.wraps: the method's own signature
    return wrap


def unsupported(what: str):
    """``instead`` for a KIP-only call whose old-broker answer is UnsupportedByBroker."""
    def raise_(exc: UnreadableAnswer):
        raise UnsupportedByBroker(f"The broker's {exc.answer} could not be read by kcli's own client, "
                                  f"so {what}") from None
    return raise_


class LibrdkafkaReads:
    """The librdkafka side of the calls kcli's own client serves first (mixed into KafkaAdmin)."""

    notes: list[str]
    on_note: Callable[[str], None] | None = None    # takes each Warn line (the CLI prints it on stderr)
    _warned_keys: set[str | Answer]
    # KafkaAdmin's, which this class is mixed into
    settings: ClientSettings
    _failure: str | None

    if TYPE_CHECKING:
        @property
        def _admin(self) -> AdminClient: ...
        def _timeout(self) -> float: ...
        def _result(self, fut, until: float | None = None) -> Any: ...

    def warn(self, text: str) -> None:
        line = f"Warn: {text}"
        self.notes.append(line)
        if self.on_note is not None:
            self.on_note(line)

    def unreadable(self, exc: UnreadableAnswer, consequence: str, once: str | None = None) -> None:
        """The Warn line for ``exc``: once per command for ``once`` (the fallback), else once per answer."""
        key = once or exc.answer
        if key in self._unreadable_warned:
            return
        self._unreadable_warned.add(key)
        self.warn(f"the broker's {exc.answer} could not be read by kcli's own client ({exc.detail}); {consequence}")

    @property
    def _unreadable_warned(self) -> set[str | Answer]:
        if not hasattr(self, "_warned_keys"):
            self._warned_keys = set()
        return self._warned_keys

    # -- metadata ---------------------------------------------------------------------------
    def _lr_metadata(self, topic: str | None = None):
        """librdkafka's Metadata (every topic, or one), in slices that double, serving its error
        events between them: an authentication failure ends the wait at once."""
        from confluent_kafka import KafkaException

        deadline = self.settings.until()
        slice_s, reason = 0.01, ""
        for _ in range(32):                       # bounded: the slices double until the deadline
            try:
                timeout = max(0.001, min(slice_s, deadline - time.monotonic()))
                return self._admin.list_topics(topic=topic, timeout=timeout)
            except KafkaException as exc:
                from kcli.admin.client import _err

                reason = _err(exc)
                self._admin.poll(0)
                if self._failure or time.monotonic() >= deadline:
                    break
                slice_s *= 2
        raise OperationError(self._failure or f"Cannot reach the cluster at {self.settings.bootstrap_servers} "
                             f"within {self.settings.timeout_ms} ms: {reason}")

    def _lr_topic_names(self) -> list[str]:
        return sorted(self._lr_metadata().topics)

    def _lr_broker_ids(self) -> list[int]:
        return sorted(self._lr_metadata().brokers)

    def _lr_describe_cluster(self) -> ClusterDescription:
        md = self._lr_metadata()
        brokers = sorted((BrokerInfo(b.id, b.host, b.port) for b in md.brokers.values()), key=lambda b: b.node_id)
        return ClusterDescription(md.cluster_id, md.controller_id if md.controller_id >= 0 else None, brokers,
                                  fenced_known=False)

    def _lr_cluster_id(self) -> str | None:
        return self._lr_metadata().cluster_id

    def _lr_partition_counts(self) -> dict[str, int]:
        return {n: len(t.partitions) for n, t in self._lr_metadata().topics.items() if t.error is None}

    def _lr_partition_leaders(self, names: list[str]) -> dict[str, dict[int, int | None]]:
        topics = self._lr_metadata().topics
        return {n: {p.id: (p.leader if p.leader >= 0 else None) for p in topics[n].partitions.values()}
                for n in names if n in topics and topics[n].error is None}

    def _lr_describe_topics(self, names: list[str], progress=None) -> list[TopicInfo]:
        """librdkafka's DescribeTopics (Metadata), as for a broker without DescribeTopicPartitions:
        no ELR, no CreationTimeMs (the field is omitted)."""
        from confluent_kafka import TopicCollection

        from kcli.admin.wire.metadata import kafka_uuid
        from kcli.model import INTERNAL_TOPICS

        futures = self._admin.describe_topics(TopicCollection(list(names)), request_timeout=self._timeout())
        out = []
        for name, fut in futures.items():
            try:
                t = self._result(fut)
            except BrokerRejected as exc:          # a refusal in the wire path's words
                raise (self._refusal(exc.error, "DescribeTopicPartitions", name)
                       or BrokerRejected(exc.error, f"Topic '{name}': {exc.error.name}")) from None
            info = TopicInfo(name, kafka_uuid(_uuid(t.topic_id)), [
                PartitionInfo(p.id, p.leader.id if p.leader is not None and p.leader.id >= 0 else None,
                              [n.id for n in p.replicas], [n.id for n in p.isr])
                for p in sorted(t.partitions, key=lambda p: p.id)])
            info.internal = name in INTERNAL_TOPICS
            out.append(info)
        return out

    # -- configs ----------------------------------------------------------------------------
    def _lr_describe_configs(self, resources: list[tuple[str, str]], refusals: list | None = None
                             ) -> list[ResourceConfig]:
        """librdkafka's DescribeConfigs (a broker's own configs from that broker), with synonyms,
        each name once (its dict of synonyms holds no repeats); ``refusals`` as
        WireClient.describe_configs'."""
        from confluent_kafka.admin import ConfigResource

        futures = {}                   # one call per resource: librdkafka takes one broker per call
        for rtype, name in resources:
            futures.update(self._admin.describe_configs([ConfigResource(rtype, name)], request_timeout=self._timeout()))
        out = []
        for res, fut in futures.items():
            kind = "broker" if res.restype == ConfigResource.Type.BROKER else "topic"
            try:
                entries = self._result(fut)
            except BrokerRejected as exc:
                refusal = not_authorized(exc.error, "DescribeConfigs", res.name, self.settings.principal())
                if refusal is not None and refusals is not None:
                    refusals.append(refusal)
                    continue
                raise refusal or OperationError(
                    f"Cannot describe configs of {kind} '{res.name}': {exc.message}") from None
            out.append(ResourceConfig(kind, res.name, [
                ConfigEntry(e.name, e.value, _source(e.source), e.is_default, e.is_sensitive, e.is_read_only,
                            [(y.name, y.value, _source(y.source)) for y in e.synonyms.values()])
                for e in entries.values()]))
        return out

    # -- offsets ----------------------------------------------------------------------------
    def _lr_list_offsets(self, partitions, time_: int) -> list[OffsetInfo]:
        from confluent_kafka import TopicPartition
        from confluent_kafka.admin import OffsetSpec

        partitions = list(partitions)
        if not partitions:
            return []
        if time_ < -3:
            raise UnsupportedByBroker(f"librdkafka does not support --time {time_}")
        spec = {-1: OffsetSpec.latest, -2: OffsetSpec.earliest, -3: OffsetSpec.max_timestamp}.get(time_)
        spec = spec() if spec else OffsetSpec.for_timestamp(time_)
        futures = self._admin.list_offsets({TopicPartition(t, p): spec for t, p in partitions},
                                           request_timeout=self._timeout())
        out = []
        for tp, fut in futures.items():
            try:
                r = self._result(fut)
            except BrokerRejected as exc:
                if time_ == -3 and exc.error.name == "UNSUPPORTED_VERSION":
                    raise UnsupportedByBroker("The broker does not support ListOffsets v7, which "
                                              "--max-timestamp (KIP-734) needs") from None
                out.append(OffsetInfo(tp.topic, tp.partition, -1, error=exc.message))
                continue
            if r.offset < -1:      # librdkafka's OFFSET_INVALID for a request that timed out
                out.append(OffsetInfo(tp.topic, tp.partition, -1, error=f"No answer from the cluster "
                                      f"within {self.settings.timeout_ms} ms (offset {r.offset})"))
                continue
            ts = r.timestamp if time_ not in (-1, -2) else None
            epoch = r.leader_epoch if r.leader_epoch is not None and r.leader_epoch >= 0 else None
            out.append(OffsetInfo(tp.topic, tp.partition, r.offset, ts, epoch))
        return sorted(out, key=lambda o: (o.topic, o.partition))

    # -- group offsets ----------------------------------------------------------------------
    def _lr_committed_offsets(self, group_id: str, partitions=None) -> list[CommittedOffset]:
        from confluent_kafka import ConsumerGroupTopicPartitions, TopicPartition

        if partitions == []:
            return []
        tps = [TopicPartition(t, p) for t, p in partitions] if partitions is not None else None
        fut = self._admin.list_consumer_group_offsets([ConsumerGroupTopicPartitions(group_id, tps)],
                                                      request_timeout=self._timeout())[group_id]
        try:
            res = self._result(fut)
        except BrokerRejected as exc:
            if exc.error.name == "GROUP_ID_NOT_FOUND":
                return []
            raise (self._refusal(exc.error, "OffsetFetch", group_id) or OperationError(
                f"Cannot fetch the committed offsets of group '{group_id}': {exc.message}")) from None
        out = []
        for tp in res.topic_partitions:
            if tp.error is not None and tp.error.code() != 0:
                error = BrokerError(tp.error.code(), tp.error.name(), tp.error.str())
                raise (self._refusal(error, "OffsetFetch", group_id, tp.topic)
                       or OperationError(f"Cannot fetch the committed offset of {tp.topic}-{tp.partition} "
                                         f"for group '{group_id}': {tp.error.str()}"))
            committed = tp.offset if tp.offset >= 0 else None
            if partitions is None and committed is None:
                continue
            epoch = tp.leader_epoch if tp.leader_epoch is not None and tp.leader_epoch >= 0 else None
            out.append(CommittedOffset(tp.topic, tp.partition, committed, epoch, tp.metadata or ""))
        return out

    def _lr_committed_offsets_of_groups(self, group_ids: list[str], partitions=None
                                        ) -> dict[str, list[CommittedOffset]]:
        return {g: self._lr_committed_offsets(g, (partitions or {}).get(g)) for g in group_ids}

    def _lr_alter_group_offsets(self, group_id: str, offsets: dict, until: float | None = None) -> dict:
        """One OffsetCommit, waited for until ``until``; the error (or None) per partition; the
        whole request unanswered: every partition has that error (outcome unknown)."""
        from confluent_kafka import ConsumerGroupTopicPartitions, TopicPartition

        req = [ConsumerGroupTopicPartitions(group_id, [TopicPartition(t, p, o) for (t, p), o in offsets.items()])]
        try:
            wait = max(0.001, min(self._timeout(), (until or self.settings.until()) - time.monotonic()))
            fut = self._admin.alter_consumer_group_offsets(req, request_timeout=wait)[group_id]
            res = self._result(fut, until=time.monotonic() + wait)
        except BrokerRejected as exc:
            refusal = self._refusal(exc.error, "OffsetCommit", group_id)
            return {tp: exc.error if refusal is None else replace(exc.error, message=refusal.message) for tp in offsets}
        result: dict = {tp: None for tp in offsets}
        for tp in res.topic_partitions:
            if tp.error is not None and tp.error.code() != 0:
                error = BrokerError(tp.error.code(), tp.error.name(), tp.error.str())
                refusal = self._refusal(error, "OffsetCommit", group_id, tp.topic)
                result[(tp.topic, tp.partition)] = error if refusal is None else replace(error, message=refusal.message)
        return result

    def _refusal(self, error: BrokerError, request: str, name: str, topic: str | None = None):
        """The NotAuthorized (kcli.errors) for an authorization error librdkafka answered
        ``request`` with about ``name`` (a topic's refusal: about ``topic`` when given), in the
        words of kcli's own client (WireBase.refused, .said); None otherwise."""
        if topic is not None and AUTHORIZATION_FAILED.get(error.code) == "topic":
            name = topic
        return not_authorized(error, request, name, self.settings.principal())


def _source(source) -> str:
    """A config source as Kafka names it, from confluent-kafka's enum or its int."""
    from kcli.admin.wire.configs import config_source

    return source.name if hasattr(source, "name") else config_source(int(source))


def _uuid(topic_id):
    """confluent-kafka's Uuid as the uuid.UUID kafka_uuid takes (None for none)."""
    import uuid

    if topic_id is None:
        return None
    return uuid.UUID(int=((topic_id.get_most_significant_bits() & (2**64 - 1)) << 64)
                     | (topic_id.get_least_significant_bits() & (2**64 - 1)))

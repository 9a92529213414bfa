"""A group's committed offsets on kcli's own connection: OffsetFetch (many groups per request from
v8, KIP-709), OffsetCommit as an admin client sends it (batched under the broker's record-size
limit, each request by its own deadline), and OffsetDelete."""

from __future__ import annotations

from kcli.admin.wire.base import UNANSWERED_CODES, DeadlineNotSent
from kcli.admin.wire.coordinators import GROUP_ID_NOT_FOUND, Backoff, CoordinatorRequests
from kcli.errors import BrokerRejected, OperationError, UnreadableAnswer, UnsupportedByBroker
from kcli.model import BrokerError, CommittedOffset

TYPE_CHECKING = False                 # typing's, without importing typing (start-up)
if TYPE_CHECKING:
    from typing import Any

COMMIT_ROUND_S = 0.2                            # an OffsetCommit goes out again only with this much left
# One OffsetCommit becomes one batch of records in __consumer_offsets, which a broker refuses
# (INVALID_COMMIT_OFFSET_SIZE) beyond its max.message.bytes (1 MiB by default): the partitions
# of a group go in requests whose records stay under half of that, by an estimate per record
# (record and key/value framing ~44 bytes, plus the group and topic names).
COMMIT_RECORD_BYTES = 44
COMMIT_BATCH_BYTES = 512 * 1024


class GroupOffsetRequests(CoordinatorRequests):
    # -- committed offsets: librdkafka's admin calls for these grow faster than the partitions
    # (bench/reset_scale.py); one request per coordinator here is linear.
    def committed_offsets(self, group_id: str,
                          partitions: list[tuple[str, int]] | None = None) -> list[CommittedOffset]:
        """OffsetFetch (v7 at most: topics by name) from the group's coordinator: the given
        partitions (an entry for each, offset None where nothing is committed), or every partition
        with a commit for None; a group the coordinator does not know has none. Over this
        client's own connection, so it also answers while librdkafka's connection to the same
        broker waits on a request that never returns (the read-back after an unanswered commit)."""
        Req = self.proto.OffsetFetchRequest

        version = self.max_version(Req)
        if version is None or version < 2:
            raise UnsupportedByBroker("The broker does not support OffsetFetch v2+")
        version = min(version, 7)
        topics = None
        if partitions is not None:
            topics = [Req.OffsetFetchRequestTopic(name=t, partition_indexes=ps)
                      for t, ps in _by_topic(partitions).items()]
        backoff = Backoff(self.settings.until())
        while True:                                # bounded by the deadline (Backoff)
            node = self.find_coordinators([group_id])[group_id]
            resp = self.send(Req(version=version, group_id=group_id, topics=topics), node)
            if not self._retriable(group_id, resp.error_code) or not backoff.wait():
                break
        return _committed(group_id, resp.error_code, resp.topics, every=partitions is None, refused=self.refused)

    def committed_offsets_of_groups(self, group_ids: list[str],
                                    partitions: dict[str, list[tuple[str, int]]] | None = None
                                    ) -> dict[str, list[CommittedOffset]]:
        """Every partition with a commit, per group, or with ``partitions`` the group's partitions
        named there (an entry for each, offset None where nothing is committed; a group not named
        there: every partition with a commit), as ``committed_offsets``: one OffsetFetch v8+
        (many groups, KIP-709) per coordinator, whatever the number of groups; a broker without
        v8 (before Kafka 3.0) is asked one OffsetFetch per group. Groups answered with a retriable coordinator error
        (moved, not available, loading) are asked again until the deadline (Backoff)."""
        Req = self.proto.OffsetFetchRequest

        version = self.max_version(Req)
        named = partitions or {}
        if version is None or version < 8:
            return {g: self.committed_offsets(g, named.get(g)) if named.get(g) != [] else [] for g in group_ids}
        version = min(version, 8)                  # v10 names topics by id; v9 adds member fields
        answers: dict[str, Any] = {}              # the last answer per group
        pending = [g for g in dict.fromkeys(group_ids) if named.get(g) != []]
        backoff = Backoff(self.settings.until())
        while pending:                             # bounded by the deadline (Backoff)
            moved = []
            for node, groups in self._by_coordinator(pending).items():
                resp = self.send(Req(version=version, require_stable=False, groups=[
                    Req.OffsetFetchRequestGroup(group_id=g, topics=None if named.get(g) is None else [
                        Req.OffsetFetchRequestGroup.OffsetFetchRequestTopics(name=t, partition_indexes=ps)
                        for t, ps in _by_topic(named[g]).items()]) for g in groups]), node)
                asked = set(groups)
                for g in resp.groups:
                    if g.group_id in asked:
                        answers[g.group_id] = g
                        if self._retriable(g.group_id, g.error_code):
                            moved.append(g.group_id)
            if not moved or not backoff.wait():
                break
            pending = moved
        return {g: _committed(g, answers[g].error_code, answers[g].topics, every=named.get(g) is None,
                              refused=self.refused)
                if g in answers else [] for g in group_ids}

    # -- reset-offsets --execute: OffsetCommit as an admin -------------------------------
    def commit_offsets(self, group_id: str, offsets: dict[tuple[str, int], int],
                       until: float | None = None) -> dict[tuple[str, int], BrokerError | None]:
        """OffsetCommit of ``offsets`` for a group without members, as an admin client sends it
        (Java's Admin.alterConsumerGroupOffsets, librdkafka's alter_consumer_group_offsets):
        generation -1, member id "", no group instance id, metadata "". One request per batch of
        partitions (COMMIT_BATCH_BYTES) to the group's coordinator, at v9 at most (v10 names
        topics by id), each by ``until`` (time.monotonic; default the command's deadline) so
        that time is left to read back what got no answer. The error (or None) per partition:
        the broker's code; ``_TIMED_OUT``/``_TRANSPORT`` for a request sent and not answered
        (unknown); ``_NOT_SENT`` for one that never went out (not applied). Partitions refused
        because the coordinator moved, is not available or is loading are committed again, to
        the coordinator found anew, after Backoff's pauses while ``until`` allows."""
        Req = self.proto.OffsetCommitRequest

        version = self.max_version(Req)
        if version is None or version < 2:
            raise UnsupportedByBroker("The broker does not support OffsetCommit v2+")
        version = min(version, 9)
        out: dict[tuple[str, int], BrokerError | None] = {}
        for batch in commit_batches(group_id, offsets):
            out.update(self._commit_batch(Req, version, group_id, batch, until))
        return out

    def _commit_batch(self, Req, version: int, group_id: str, batch: dict[tuple[str, int], int],
                      until: float | None) -> dict[tuple[str, int], BrokerError | None]:

        Topic = Req.OffsetCommitRequestTopic
        Partition = Topic.OffsetCommitRequestPartition
        out: dict[tuple[str, int], BrokerError | None] = {}
        pending = batch
        backoff = Backoff(until or self.settings.until(), COMMIT_ROUND_S)
        while True:                                # bounded by ``until`` (Backoff)
            req = Req(version=version, group_id=group_id, generation_id_or_member_epoch=-1, member_id="",
                      group_instance_id=None, retention_time_ms=-1, topics=[
                          Topic(name=t, partitions=[Partition(partition_index=p, committed_offset=pending[(t, p)],
                                                              committed_leader_epoch=-1, committed_metadata="")
                                                    for p in ps])
                          for t, ps in _by_topic(pending).items()])
            try:
                node = self.find_coordinators([group_id], until=until)[group_id]
            except UnreadableAnswer:              # not sent: librdkafka may send it (kcli.admin.fallback)
                raise
            except OperationError as exc:         # no coordinator: the commit did not go out
                out.update({tp: _not_sent(exc) for tp in pending})
                break
            try:
                resp = self.send(req, node, until=until)
            except UnreadableAnswer:               # answered: librdkafka commits the same offsets again
                raise
            except BrokerRejected as exc:          # sent and not answered: its outcome is unknown
                out.update({tp: exc.error for tp in pending})
                break
            except OperationError as exc:          # not sent
                out.update({tp: _not_sent(exc) for tp in pending})
                break
            retry = {}
            for t in resp.topics:
                for p in t.partitions:
                    tp = (t.name, p.partition_index)
                    if tp not in pending:
                        continue
                    code = p.error_code
                    out[tp] = self.said(code, "OffsetCommit", group_id, t.name)
                    if self._retriable(group_id, code):
                        retry[tp] = pending[tp]
            for tp in pending:
                out.setdefault(tp, BrokerError(UNANSWERED_CODES["_TRANSPORT"], "_TRANSPORT",
                                               f"the OffsetCommit answer did not mention {tp[0]}-{tp[1]}"))
            if not retry or not backoff.wait():
                break
            pending = retry
        return out

    # -- delete-offsets (OffsetDelete; no client library exposes it) ---------------------
    def delete_offsets(self, group_id: str, partitions: list[tuple[str, int]]) -> tuple:
        """(group-level BrokerError or None, {(topic, partition): BrokerError or None})."""
        from kafka.errors import for_code

        Req = self.proto.OffsetDeleteRequest

        version = self.max_version(Req)
        if version is None:
            raise UnsupportedByBroker("The broker does not support OffsetDelete")
        try:
            node = self.find_coordinators([group_id])[group_id]
        except OperationError as exc:       # even unanswered: the OffsetDelete did not go out
            raise OperationError(f"OffsetDelete not sent: {exc}") from None
        topics = _by_topic(partitions)
        req = Req(version=version, group_id=group_id, topics=[
            Req.OffsetDeleteRequestTopic(name=t, partitions=[
                Req.OffsetDeleteRequestTopic.OffsetDeleteRequestPartition(partition_index=p)
                for p in ps]) for t, ps in topics.items()])
        resp = self.send(req, node)

        def error(code):
            return BrokerError(code, for_code(code).message, for_code(code).description) if code else None

        per = {(t.name, p.partition_index): error(p.error_code) for t in resp.topics for p in t.partitions}
        return error(resp.error_code), per



def _not_sent(exc: Exception) -> BrokerError:
    """A change that never reached the broker: not applied (kcli.ops.failures.unanswered: no)."""
    return BrokerError(-1, "_NOT_SENT", str(exc) if isinstance(exc, DeadlineNotSent) else f"not sent: {exc}")


def commit_batches(group_id: str, offsets: dict[tuple[str, int], int]) -> list[dict[tuple[str, int], int]]:
    """``offsets`` in OffsetCommit batches whose records in __consumer_offsets stay under
    COMMIT_BATCH_BYTES (estimated per partition: COMMIT_RECORD_BYTES and the names)."""
    batches: list[dict[tuple[str, int], int]] = [{}]
    size, group_bytes, topic_bytes = 0, len(group_id.encode()), {}
    for (t, p), offset in offsets.items():
        if t not in topic_bytes:
            topic_bytes[t] = len(t.encode())
        cost = COMMIT_RECORD_BYTES + group_bytes + topic_bytes[t]
        if batches[-1] and size + cost > COMMIT_BATCH_BYTES:
            batches.append({})
            size = 0
        batches[-1][(t, p)] = offset
        size += cost
    return batches if batches[-1] else []


def _by_topic(partitions) -> dict[str, list[int]]:
    """(topic, partition) pairs as the requests take them: the partitions of each topic."""
    out: dict[str, list[int]] = {}
    for t, p in partitions:
        out.setdefault(t, []).append(p)
    return out



def _committed(group_id: str, error_code: int, topics, every: bool, refused) -> list[CommittedOffset]:
    """One group's OffsetFetch answer: its committed offsets (``every``: only the partitions
    with a commit); a group the coordinator does not know has none. An authorization error is
    ``refused``'s (WireBase.refused)."""
    from kafka.errors import for_code

    if error_code == GROUP_ID_NOT_FOUND:
        return []
    if error_code:
        raise refused(error_code, "OffsetFetch", group_id) or OperationError(
            f"Cannot fetch the committed offsets of group '{group_id}': {for_code(error_code).description}")
    out = []
    for t in topics:
        for p in t.partitions:
            if p.error_code:
                raise refused(p.error_code, "OffsetFetch", t.name) or OperationError(
                    f"Cannot fetch the committed offset of {t.name}-{p.partition_index} for group '{group_id}': "
                    f"{for_code(p.error_code).description}")
            committed = p.committed_offset if p.committed_offset >= 0 else None
            if every and committed is None:
                continue
            epoch = getattr(p, "committed_leader_epoch", -1)
            out.append(CommittedOffset(t.name, p.partition_index, committed,
                                       epoch if epoch is not None and epoch >= 0 else None,
                                       p.metadata or ""))
    return out

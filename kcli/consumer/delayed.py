"""The delayed-revoke consumer of ``consumer-delayed-revoke.txt`` on confluent-kafka.

A revoke requested during ``poll()`` N is completed at the start of poll N+1, unless the
application calls ``delay_revoke()`` (then N+2, and so on), until a deadline: past it the
partitions are released anyway and reported by ``lost()``. Meanwhile the application keeps
processing, committing and receiving the records of the other partitions at full rate.

librdkafka 2.16 pauses a consumer's whole assignment while a rebalance waits for the
application (``rd_kafka_assignment_pause`` on every incremental rebalance op), so one client
cannot do this. Two are used ("split"):

* the *member* subscribes, owns the rebalance callbacks and the commits, pauses everything it is
  assigned and never hands out records. It defers a revoke by calling ``incremental_assign([])``
  in ``on_revoke`` (that switches confluent-kafka's automatic unassign off) and completes it
  with ``incremental_unassign()`` from a later poll;
* the *fetcher* has no subscription: it ``incremental_assign()``s exactly the partitions the
  member owns and the application may read, at the group's committed offset or, without one,
  at the start-offset policy's (``kcli.consumer.policies``), and drops a partition as soon as
  its revoke is requested. It never commits.

Nothing raises inside a librdkafka callback (that loses the records fetched in the same call):
the callbacks only do bookkeeping and member-local calls; the fetcher follows in ``poll()``, and
errors are raised by ``poll()``. Use the consumer from one thread.
"""

from __future__ import annotations

import time
from typing import Iterable

import confluent_kafka
from confluent_kafka import KafkaError, KafkaException, TopicPartition

from kcli.consumer.anchors import BrokerAnchors, settings_for
from kcli.consumer.consumer import fresh
from kcli.consumer.errors import ConfigurationError
from kcli.consumer.policies import StartPolicy, check_protocol, from_config, group_protocol
from kcli.consumer.positions import Key, Positioner, Resolver

CHUNK_S = 0.05                 # poll() notices a revoke request within one such fetch chunk
DEADLINE_MARGIN_MS = 5_000     # default deadline: max.poll.interval.ms minus this
# A commit rejected with one of these: the member is out of the group, its partitions are lost.
OUT_OF_GROUP = frozenset({KafkaError.UNKNOWN_MEMBER_ID, KafkaError.FENCED_MEMBER_EPOCH,
                          KafkaError.FENCED_INSTANCE_ID})
# With these, only while a revoke is pending (librdkafka reports no loss then). Otherwise they
# are a race with a rebalance, as librdkafka treats them: nothing is committed, commit again.
STALE = frozenset({KafkaError.ILLEGAL_GENERATION, KafkaError.STALE_MEMBER_EPOCH})
RETRY = STALE | {KafkaError.REBALANCE_IN_PROGRESS}
# group membership properties: the member's alone
_MEMBERSHIP = ("group.id", "group.protocol", "group.remote.assignor", "group.instance.id",
               "partition.assignment.strategy", "session.timeout.ms", "heartbeat.interval.ms",
               "max.poll.interval.ms", "enable.auto.commit", "auto.commit.interval.ms", "on_commit")


class DelayRevokeConsumer:
    """``DelayRevokeConsumer(config, start=earliest())``: ``config`` is librdkafka's (with a
    ``group.id`` and an incremental protocol: ``group.protocol=consumer``, or ``classic`` with
    ``partition.assignment.strategy=cooperative-sticky``); ``start`` the start-offset policy, as
    for :class:`kcli.consumer.Consumer`. The application commits with :meth:`commit`.

    ``revoke_deadline_ms`` bounds how long a revoke may be delayed, counted from its request;
    by default ``max.poll.interval.ms`` minus 5 s, inside the rebalance timeout after which a
    ``group.protocol=consumer`` coordinator fences the member."""

    def __init__(self, config: dict, start: StartPolicy | str | None = None, *,
                 revoke_deadline_ms: int | None = None, lookup_timeout_ms: int = 10_000):
        conf = dict(config)
        self.policy = from_config(conf, start)
        check_protocol(self.policy, conf)
        _check_incremental(conf)
        group = conf.get("group.id")
        if not group:
            raise ConfigurationError("The delayed-revoke consumer needs a group.id")
        if str(conf.get("enable.auto.commit", "false")).strip().lower() in ("true", "1"):
            raise ConfigurationError("The delayed-revoke consumer does not auto-commit: commit the "
                                     "processed offsets with commit() (enable.auto.commit=false)")
        max_poll_ms = int(conf.get("max.poll.interval.ms", 300_000))
        self.revoke_deadline_ms = (max_poll_ms - DEADLINE_MARGIN_MS if revoke_deadline_ms is None
                                   else int(revoke_deadline_ms))
        if self.revoke_deadline_ms <= 0:
            raise ConfigurationError(
                f"No time is left to delay a revoke (deadline {self.revoke_deadline_ms} ms; by "
                f"default max.poll.interval.ms minus {DEADLINE_MARGIN_MS} ms): raise "
                "max.poll.interval.ms or give revoke_deadline_ms")
        self._member = confluent_kafka.Consumer({
            **conf, "enable.auto.commit": False, "enable.auto.offset.store": False,
            "auto.offset.reset": "latest"})
        fetcher_conf = {k: v for k, v in conf.items() if k not in _MEMBERSHIP}
        self._fetcher = confluent_kafka.Consumer({
            **fetcher_conf, "group.id": f"{group}.kcli-fetcher",
            "client.id": f"{conf.get('client.id', 'kcli')}-fetcher",
            "enable.auto.commit": False, "enable.auto.offset.store": False,
            "auto.offset.reset": self.policy.librdkafka_reset})
        self._anchors = BrokerAnchors(settings_for(conf, lookup_timeout_ms), group)
        # lookups through the member (its group's commits, its metadata); positions the fetcher
        self._resolver = Resolver(self._member, self.policy, self._anchors,
                                  lookup_timeout_ms / 1000)
        self._positioner = Positioner(self._fetcher, self._resolver)
        self._owned: set[Key] = set()              # assigned to the member, not yet released
        self._fetching: set[Key] = set()           # assigned to the fetcher
        self._revoke_next: dict[Key, float] = {}   # partition -> deadline (monotonic)
        self._revoke_later: dict[Key, float] = {}
        self._member_revoke: list[Key] = []        # the member's deferred revoke (all of it)
        self._lost: set[Key] = set()
        self._events: list = []                    # the member's error events, for poll()
        self._errors: list[BaseException] = []
        self._woken = False                        # a revoke was requested or partitions lost
        self._closing = False

    # -- the seed's API ---------------------------------------------------------------------

    def subscribe(self, topics: list[str]) -> None:
        self._member.subscribe(list(topics), on_assign=self._on_assign,
                               on_revoke=self._on_revoke, on_lost=self._on_lost)

    def poll(self, timeout: float = 1.0, max_records: int = 500) -> list:
        """Records (and error events, as confluent-kafka's ``consume``) of partitions that are
        neither to be revoked, revoked nor lost. Completes the revokes requested by the previous
        poll that were not delayed. Returns early, within one 50 ms fetch chunk, when a revoke
        is requested or partitions are lost. Raises what a callback or the policy recorded."""
        end = time.monotonic() + max(0.0, timeout)
        self._anchors.check_supported(self.policy)
        self._begin()
        while True:
            self._serve()
            self._raise_recorded()
            out = [] if self._woken else self._positioner.sift(
                self._fetcher.consume(max_records, min(CHUNK_S, max(0.0, end - time.monotonic()))))
            self._serve()
            out = [m for m in out if self._may_deliver(m)]
            if out or self._events or self._woken or time.monotonic() >= end:
                self._woken = False
                events, self._events = self._events, []
                return events + out

    def to_be_revoked(self) -> list[TopicPartition]:
        """Partitions whose revoke the next poll() completes, unless delayed."""
        return _tps(self._revoke_next)

    def lost(self) -> list[TopicPartition]:
        """Partitions lost during the last poll() or since: past their revoke deadline, reported
        lost by librdkafka, or owned when a commit was rejected as fenced. Do not commit them."""
        return _tps(self._lost)

    def delay_revoke(self, partitions: Iterable) -> bool:
        """Delay the revoke of these partitions (TopicPartitions or (topic, partition) pairs) by
        one poll. False when one of them is not pending revoke any more, or past its deadline:
        such a partition is released at once (the group gets it back from the next poll) and
        reported by lost()."""
        ok = True
        now = time.monotonic()
        for key in map(_key, partitions):
            deadline = self._revoke_next.get(key, self._revoke_later.get(key))
            if deadline is None:
                ok = False
            elif now >= deadline:
                self._release([key], lost=True)
                ok = False
            else:
                self._revoke_later[key] = self._revoke_next.pop(key, deadline)
        return ok

    def commit(self, offsets: Iterable[TopicPartition]) -> list[TopicPartition]:
        """Commit, synchronously, the offsets (the next offset to read) of the partitions still
        owned, assigned or pending revoke; the others are not sent. Returns the TopicPartitions
        committed: [] when nothing was owned, or when the commit was rejected because the member
        is out of the group (unknown member, fenced; illegal generation or stale member epoch
        while a revoke is pending): then the whole assignment is lost (see lost()). Rejected by
        a rebalance in progress, it returns [] too: commit again later. Other errors raise."""
        owned = [tp for tp in offsets if _key(tp) in self._owned]
        if not owned:
            return []
        try:
            result = self._member.commit(offsets=owned, asynchronous=False)
        except KafkaException as exc:
            if self._rejected(exc.args[0]):
                return []
            raise
        errors = [tp.error for tp in result if tp.error is not None]
        if any(self._rejected(err) for err in errors):
            return []
        if errors:
            raise KafkaException(errors[0])
        return result

    def _rejected(self, err: KafkaError) -> bool:
        """Whether the commit was refused by the group (the assignment is lost, or it raced a
        rebalance), not failed."""
        if err.code() in OUT_OF_GROUP or (err.code() in STALE and self._member_revoke):
            self._release(sorted(self._owned), lost=True)
            return True
        return err.code() in RETRY

    def assignment(self) -> list[TopicPartition]:
        """The partitions owned: assigned, or pending revoke."""
        return _tps(self._owned)

    def committed(self, partitions: list[TopicPartition], timeout: float = 10.0) -> list:
        return self._member.committed(partitions, timeout=timeout)

    def close(self) -> None:
        """Leave the group. Revokes are not delayed any more: pending ones complete now."""
        self._closing = True
        try:
            self._release(list(self._revoke_next) + list(self._revoke_later), lost=False)
            self._complete_member_revoke()
            self._member.close()
        finally:
            self._fetcher.close()
            self._anchors.close()

    def __enter__(self) -> "DelayRevokeConsumer":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- the member's rebalance callbacks: bookkeeping and member-local calls, never raise ----

    def _on_assign(self, member, partitions) -> None:
        try:
            member.incremental_assign(partitions)
            if partitions:
                member.pause(partitions)
            # also what it kept when a rejected commit made the assignment count as lost
            self._owned = {_key(tp) for tp in member.assignment()}
        except Exception as exc:  # noqa: BLE001 - raised from poll()
            self._record(exc)
            self._owned.update(_key(tp) for tp in partitions)

    def _on_revoke(self, member, partitions) -> None:
        keys = [_key(tp) for tp in partitions]
        live = [k for k in keys if k in self._owned]
        if self._closing or not live:
            self._release(keys, lost=False)     # confluent-kafka unassigns the member
            return
        self._member_revoke = keys
        deadline = time.monotonic() + self.revoke_deadline_ms / 1000
        self._revoke_next.update(dict.fromkeys(live, deadline))
        self._woken = True
        try:
            member.incremental_assign([])       # defer: the revoke stays pending
        except Exception as exc:  # noqa: BLE001 - still deferred (confluent-kafka counted the call)
            self._record(exc)

    def _on_lost(self, _member, partitions) -> None:
        keys = [_key(tp) for tp in partitions]
        self._lost.update(k for k in keys if k in self._owned)
        self._member_revoke = [k for k in self._member_revoke if k not in keys]
        self._release(keys, lost=False)         # confluent-kafka unassigns the member
        self._woken = True

    # -- poll's steps (outside any callback) -----------------------------------------------

    def _begin(self) -> None:
        """Seed semantics: complete the revokes not delayed, forget the last poll's losses, and
        the delayed revokes become the next ones."""
        self._lost = set()
        self._woken = False
        due = list(self._revoke_next)
        self._revoke_next, self._revoke_later = self._revoke_later, {}
        self._release(due, lost=False)

    def _serve(self) -> None:
        """Run the member's callbacks, then bring the fetcher in line with them."""
        try:
            for msg in self._member.consume(100, 0):
                if msg.error() is not None:
                    self._events.append(msg)      # records: none are fetched (paused)
        except Exception as exc:  # noqa: BLE001 - e.g. a fatal error
            self._record(exc)
        now = time.monotonic()
        expired = [k for k, d in {**self._revoke_next, **self._revoke_later}.items() if now >= d]
        self._release(expired, lost=True)
        self._sync_fetcher()
        self._complete_member_revoke()

    def _sync_fetcher(self) -> None:
        want = self._owned - set(self._revoke_next) - set(self._revoke_later)
        try:
            stop = self._fetching - want
            if stop:
                self._fetcher.incremental_unassign([TopicPartition(t, p) for t, p in stop])
                self._fetching -= stop
                self._positioner.forget(stop)
            start = sorted(want - self._fetching)
            if start:       # a committed offset wins; the others as the policy says
                committed = self._resolver.committed(start)
                self._start(committed)
                self._start(self._resolver.initial([k for k in start if k not in committed]))
            if self._positioner.unpositioned:
                self._positioner.position()
        except Exception as exc:  # noqa: BLE001 - retried on the next poll, raised from poll()
            self._record(fresh(exc))

    def _start(self, offsets: dict[Key, int]) -> None:
        if offsets:
            self._fetcher.incremental_assign([TopicPartition(t, p, o)
                                              for (t, p), o in offsets.items()])
            self._fetching.update(offsets)

    def _may_deliver(self, msg) -> bool:
        if msg.topic() is None or msg.partition() is None or msg.partition() < 0:
            return True                           # a client-wide error event
        key = (msg.topic(), msg.partition())
        return key in self._fetching and key in self._owned \
            and key not in self._revoke_next and key not in self._revoke_later

    def _release(self, keys: list[Key], lost: bool) -> None:
        """The revoke of these partitions is complete (or they are gone): no more records or
        commits."""
        for k in keys:
            self._revoke_next.pop(k, None)
            self._revoke_later.pop(k, None)
            if lost and k in self._owned:
                self._lost.add(k)
                self._woken = True
            self._owned.discard(k)

    def _complete_member_revoke(self) -> None:
        """The member's deferred revoke completes (the group may hand the partitions over) once
        none of its partitions is pending: librdkafka takes it as a whole."""
        pending = set(self._revoke_next) | set(self._revoke_later)
        if self._member_revoke and not pending.intersection(self._member_revoke):
            revoke, self._member_revoke = self._member_revoke, []
            try:
                self._member.incremental_unassign([TopicPartition(t, p) for t, p in revoke])
            except Exception as exc:  # noqa: BLE001
                self._record(exc)

    def _record(self, exc: BaseException) -> None:
        if not any(type(e) is type(exc) and e.args == exc.args for e in self._errors):
            self._errors.append(exc)

    def _raise_recorded(self) -> None:
        if self._errors:
            raise self._errors.pop(0)


def _check_incremental(config: dict) -> None:
    if group_protocol(config) == "consumer":
        return
    strategy = str(config.get("partition.assignment.strategy", "range,roundrobin"))
    if strategy.replace(" ", "").lower() != "cooperative-sticky":
        raise ConfigurationError(
            f"The delayed-revoke consumer needs an incremental protocol: group.protocol=consumer, "
            f"or partition.assignment.strategy=cooperative-sticky (not {strategy!r}: an eager "
            "assignor revokes every partition on every rebalance)")


def _key(tp) -> Key:
    return (tp.topic, tp.partition) if isinstance(tp, TopicPartition) else (tp[0], int(tp[1]))


def _tps(keys) -> list[TopicPartition]:
    return [TopicPartition(t, p) for t, p in sorted(keys)]

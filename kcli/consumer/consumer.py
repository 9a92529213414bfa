"""A thin confluent-kafka consumer that applies a start-offset policy.

``earliest``/``latest`` run as librdkafka's ``auto.offset.reset``. For ``to_start_time`` and
``latest(max_age)`` librdkafka runs with ``auto.offset.reset=error``, and:

* the library's rebalance listener reads the committed offsets of newly assigned partitions (a
  committed offset always wins), resolves the others with the policy and ``incremental_assign``s
  every partition with an explicit offset (or none, for a committed one);
* librdkafka's ``_AUTO_OFFSET_RESET`` event (an out-of-range position, or a partition the listener
  could not resolve) is handled in ``poll()``/``consume()``: resolved, then re-assigned locally
  (``seek`` is refused in that state).

Nothing raises inside a librdkafka callback (that loses the records fetched in the same call):
errors are recorded and raised by the next ``poll()``/``consume()``. A partition whose offset
cannot be resolved stays unpositioned, and every later poll retries and raises again: there is
no fallback (KIP-1282).
"""

from __future__ import annotations

import time

import confluent_kafka
from confluent_kafka import TopicPartition

from kcli.consumer.anchors import BrokerAnchors, settings_for
from kcli.consumer.errors import ConfigurationError
from kcli.consumer.policies import StartPolicy, check_protocol, from_config
from kcli.consumer.positions import Key, Positioner, Resolver


class Consumer:
    """``Consumer(config, start=to_start_time())``: ``config`` is librdkafka's; ``start`` the
    policy (or give ``auto.offset.reset`` and ``auto.offset.reset.latest.max.age`` in
    ``config``). ``lookup_timeout_ms`` bounds each broker lookup a policy makes."""

    def __init__(self, config: dict, start: StartPolicy | str | None = None, *,
                 new_partitions: StartPolicy | str | None = None, lookup_timeout_ms: int = 10_000):
        conf = dict(config)
        self.policy = from_config(conf, start, new_partitions)
        check_protocol(self.policy, conf)
        if not self.policy.native and not conf.get("group.id"):
            raise ConfigurationError(f"The start-offset policy {self.policy} needs a group.id")
        conf["auto.offset.reset"] = self.policy.librdkafka_reset
        self._consumer = confluent_kafka.Consumer(conf)
        self._anchors = BrokerAnchors(settings_for(conf, lookup_timeout_ms), conf.get("group.id", ""))
        self._resolver = Resolver(self._consumer, self.policy, self._anchors, lookup_timeout_ms / 1000)
        self._positioner = Positioner(self._consumer, self._resolver)
        self._errors: list[BaseException] = []
        self._callbacks: dict = {}
        self._topics: list[str] = []

    # -- subscription and callbacks ---------------------------------------------------------

    def subscribe(self, topics: list[str], on_assign=None, on_revoke=None, on_lost=None) -> None:
        """As confluent-kafka's; the callbacks are notifications, called as ``cb(consumer,
        partitions)`` after the library assigned or before it unassigns (do not assign in them).
        An exception they raise is re-raised by the next ``poll()``."""
        self._callbacks = {"assign": on_assign, "revoke": on_revoke, "lost": on_lost}
        self._topics = list(topics)
        if self.policy.new_partitions is not None:
            self._anchors.before_join(self._topics)
        if self.policy.native:
            kwargs = {k: self._notifier(cb) for k, cb in (("on_assign", on_assign),
                      ("on_revoke", on_revoke), ("on_lost", on_lost)) if cb is not None}
        else:
            kwargs = {"on_assign": self._on_assign, "on_revoke": self._on_revoke,
                      "on_lost": self._on_lost}
        self._consumer.subscribe(list(topics), **kwargs)

    def unsubscribe(self) -> None:
        self._positioner.forget([*self._positioner.unpositioned,
                                 *self._positioner.unresolved_initial])
        self._consumer.unsubscribe()

    def _notifier(self, cb):
        def notify(_consumer, partitions):
            self._notify(cb, partitions)
        return notify

    def _notify(self, cb, partitions) -> None:
        if cb is None:
            return
        try:
            cb(self, partitions)
        except Exception as exc:  # noqa: BLE001 - never out of a librdkafka callback
            self._errors.append(exc)

    def _on_assign(self, consumer, partitions) -> None:
        keys = [(p.topic, p.partition) for p in partitions]
        try:
            offsets = self._start_offsets(keys)
        except Exception as exc:  # noqa: BLE001 - recorded, raised from poll()
            self._errors.append(exc)
            offsets = {}
            # librdkafka reports those without a commit
            self._positioner.unresolved_initial.update(keys)
        try:
            consumer.incremental_assign([TopicPartition(t, p, offsets[(t, p)]) if (t, p) in offsets
                                         else TopicPartition(t, p) for t, p in keys])
        except Exception as exc:  # noqa: BLE001
            self._errors.append(exc)
        self._notify(self._callbacks.get("assign"), partitions)

    def _start_offsets(self, keys: list[Key]) -> dict[Key, int]:
        """Resolved offsets of the partitions without a committed offset (the others are left
        to librdkafka, which starts at the commit)."""
        if self.policy.new_partitions is not None:
            self._anchors.after_join(self._topics)          # the group has assigned us: it exists
        committed = self._resolver.committed(keys)
        return self._resolver.initial([k for k in keys if k not in committed])

    def _on_revoke(self, _consumer, partitions) -> None:
        self._notify(self._callbacks.get("revoke"), partitions)
        self._positioner.forget([(p.topic, p.partition) for p in partitions])

    def _on_lost(self, _consumer, partitions) -> None:
        self._notify(self._callbacks.get("lost") or self._callbacks.get("revoke"), partitions)
        self._positioner.forget([(p.topic, p.partition) for p in partitions])

    # -- poll / consume ---------------------------------------------------------------------

    def poll(self, timeout: float | None = None):
        """One message (or an error event, as confluent-kafka), or None. Raises what the policy
        or a callback recorded."""
        deadline = None if timeout is None or timeout < 0 else time.monotonic() + timeout
        self._anchors.check_supported(self.policy)
        while True:
            self._raise_recorded()
            msg = self._consumer.poll(_remaining(deadline))
            if msg is None or not self._positioner.is_reset(msg):
                if msg is None:
                    self._raise_recorded()
                return msg
            self._positioner.note_reset(msg)
            if deadline is not None and time.monotonic() >= deadline:
                self._raise_recorded()
                return None

    def consume(self, num_messages: int = 1, timeout: float | None = None) -> list:
        """Up to ``num_messages`` messages. Records already fetched are returned first; an
        error recorded meanwhile is raised by the next call."""
        deadline = None if timeout is None or timeout < 0 else time.monotonic() + timeout
        self._anchors.check_supported(self.policy)
        while True:
            self._raise_recorded()
            out = self._positioner.sift(self._consumer.consume(num_messages, _remaining(deadline)))
            if out:
                return out
            if deadline is not None and time.monotonic() >= deadline:
                self._raise_recorded()
                return out

    def _raise_recorded(self) -> None:
        if not self._errors and self._positioner.unpositioned:
            try:
                self._positioner.position()
            except Exception as exc:  # noqa: BLE001 - raised below, and again on each poll
                self._errors.append(fresh(exc))
        if self._errors:
            raise self._errors.pop(0)

    # -- the rest -----------------------------------------------------------------------------

    def commit(self, *args, **kwargs):
        """As confluent-kafka's ``commit`` (message=, offsets=, asynchronous=)."""
        return self._consumer.commit(*args, **kwargs)

    def committed(self, partitions, timeout: float | None = None):
        return self._consumer.committed(partitions, timeout=timeout) if timeout is not None \
            else self._consumer.committed(partitions)

    def assignment(self) -> list:
        return self._consumer.assignment()

    def position(self, partitions) -> list:
        return self._consumer.position(partitions)

    def get_watermark_offsets(self, partition, *args, **kwargs):
        return self._consumer.get_watermark_offsets(partition, *args, **kwargs)

    def close(self) -> None:
        try:
            self._consumer.close()
        finally:
            self._anchors.close()

    def __enter__(self) -> "Consumer":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _remaining(deadline: float | None) -> float:
    return -1 if deadline is None else max(0.0, deadline - time.monotonic())


def fresh(exc: BaseException) -> BaseException:
    """A new instance for an error raised again on each poll (no growing traceback chain)."""
    try:
        return type(exc)(*exc.args)
    except Exception:  # noqa: BLE001 - exotic constructors: raise the original
        return exc

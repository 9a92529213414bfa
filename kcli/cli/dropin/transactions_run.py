"""kafka-transactions' execution (its grammar: ``kcli.cli.dropin.transactions``): each command on
``kcli.ops.transactions``, its table as ``ToolsUtils.prettyPrintTable`` prints it
(``kcli.render.transactions``), its failures as TransactionsCommand words them (one line on
stderr, exit 1)."""

from __future__ import annotations

from kcli.cli.dropin.run import Console, admin_for
from kcli.errors import BrokerRejected, KcliError, OperationError
from kcli.model import AbortPlan, BrokerError
from kcli.render.transactions import LIST_HEADERS, java_table as table

DEBUG = " Enable debug logging for additional detail."


class Failed(Exception):
    """printErrorAndExit: the line on stderr, exit 1."""


def execute(req, console: Console) -> int:
    try:
        with admin_for(req.bootstrap, req.command_config, console.timeout_ms, console) as admin:
            text = _COMMANDS[req.command](admin, req)
    except Failed as exc:
        console.write("stderr", f"{exc}\n")
        return 1
    except KcliError as exc:
        console.write("stderr", f"{exc}\n")
        return console.failed(exc)
    console.write("stdout", text)
    return 0


def _message(exc: Exception) -> str:
    """The Java exception's getMessage() for a broker's error."""
    from kcli.render.javatext import ERRORS

    error = getattr(exc, "error", None)
    if isinstance(error, BrokerError) and error.code in ERRORS:
        return ERRORS[error.code][2]
    return str(exc)


def _failed(what: str, exc: Exception) -> Failed:
    return Failed(f"{what}: {_message(exc)}.{DEBUG}")


def _now_ms() -> int:
    import time

    return int(time.time() * 1000)


def _list(admin, req) -> str:
    from kcli.ops import transactions as lib

    try:
        listings = lib.listed(admin, req.get("duration_filter"), req.get("transactional_id_pattern"))
    except (BrokerRejected, OperationError) as exc:
        raise _failed("Failed to list transactions", exc) from None
    rows = [[t.transactional_id, str(t.coordinator), str(t.producer_id), t.state] for t in listings]
    return table(LIST_HEADERS, rows)


def _describe(admin, req) -> str:
    from kcli.ops import transactions as lib

    tid = str(req.get("transactional_id"))
    what = f"Failed to describe transaction state of transactional-id `{tid}`"
    try:
        d = lib.described(admin, [tid])[tid]
    except (BrokerRejected, OperationError) as exc:
        raise _failed(what, exc) from None
    if isinstance(d, BrokerError):
        if d.code == TRANSACTIONAL_ID_NOT_FOUND:
            raise Failed(f"{what}: DescribeTransactions request for transactionalId `{tid}` failed because the ID "
                         f"could not be found.{DEBUG}")
        raise _failed(what, BrokerRejected(d))
    start = "None" if d.start_time_ms is None else str(d.start_time_ms)
    duration = "None" if d.start_time_ms is None else str(_now_ms() - d.start_time_ms)
    row = [str(d.coordinator), tid, str(d.producer_id), str(d.producer_epoch), d.state, str(d.timeout_ms), start,
           duration, ",".join(f"{t}-{p}" for t, p in d.partitions)]
    return table(["CoordinatorId", "TransactionalId", "ProducerId", "ProducerEpoch", "TransactionState",
                  "TransactionTimeoutMs", "CurrentTransactionStartTimeMs", "TransactionDurationMs",
                  "TopicPartitions"], [row])


def _describe_producers(admin, req) -> str:
    from kcli.ops import transactions as lib

    topic, partition, broker = str(req.get("topic")), int(req.get("partition")), req.get("broker_id")
    where = "leader" if broker is None else f"broker {broker}"
    what = f"Failed to describe producers for partition {topic}-{partition} on {where}"
    try:
        states = lib.producers(admin, [(topic, partition)], broker)[(topic, partition)]
    except (BrokerRejected, OperationError) as exc:
        raise _failed(what, exc) from None
    if isinstance(states, BrokerError):
        raise _failed(what, BrokerRejected(states))
    rows = [[str(s.producer_id), str(s.producer_epoch), str(-1 if s.coordinator_epoch is None else s.coordinator_epoch),
             str(s.last_sequence), str(s.last_timestamp),
             "None" if s.txn_start_offset is None else str(s.txn_start_offset)] for s in states]
    return table(["ProducerId", "ProducerEpoch", "LatestCoordinatorEpoch", "LastSequence", "LastTimestamp",
                  "CurrentTransactionStartOffset"], rows)


def _find_hanging(admin, req) -> str:
    from kcli.ops import transactions as lib

    topic, partition, broker = req.get("topic"), req.get("partition"), req.get("broker_id")
    now = _now_ms()
    try:
        found = lib.find_hanging(admin, topic, partition, broker, int(req.get("max_transaction_timeout")), now)
    except BrokerRejected as exc:
        what = "Failed to describe 1 topics" if topic is not None and partition is None else \
            f"Failed to describe producers for partitions on broker {broker}"
        raise _failed(what, exc) from None
    rows = [[t.topic, str(t.partition), str(t.producer.producer_id), str(t.producer.producer_epoch),
             str(-1 if t.producer.coordinator_epoch is None else t.producer.coordinator_epoch), str(t.start_offset),
             str(t.producer.last_timestamp), str(t.age_ms(now) // 60_000)] for t in found]
    return table(["Topic", "Partition", "ProducerId", "ProducerEpoch", "CoordinatorEpoch", "StartOffset",
                  "LastTimestamp", "Duration(min)"], rows)


def _abort(admin, req) -> str:
    from kcli.ops import transactions as lib

    topic, partition = str(req.get("topic")), int(req.get("partition"))
    start, producer_id = req.get("start_offset"), req.get("producer_id")
    if start is None:                        # the grammar checked the producer's three arguments
        plan = AbortPlan(topic, partition, int(producer_id), int(req.get("producer_epoch")),
                             max(0, int(req.get("coordinator_epoch"))))
    else:
        try:
            plan = lib.plan_abort(admin, topic, partition, int(start))
        except BrokerRejected as exc:
            raise _failed(f"Failed to validate producer state for partition {topic}-{partition}", exc) from None
        except OperationError as exc:
            raise Failed(str(exc)) from None
    try:
        lib.abort(admin, plan)
    except (BrokerRejected, OperationError) as exc:
        spec = (f"AbortTransactionSpec(topicPartition={topic}-{partition}, producerId={plan.producer_id}, "
                f"producerEpoch={plan.producer_epoch}, coordinatorEpoch={plan.coordinator_epoch})")
        raise _failed(f"Failed to abort transaction {spec}", exc) from None
    return ""


def _force_terminate(admin, req) -> str:
    from kcli.ops import transactions as lib

    tid = str(req.get("transactionalId"))
    try:
        lib.force_terminate(admin, tid)
    except (BrokerRejected, OperationError) as exc:
        raise _failed(f"Failed to force terminate transactionalId `{tid}`", exc) from None
    return ""


TRANSACTIONAL_ID_NOT_FOUND = 105

_COMMANDS = {"list": _list, "describe": _describe, "describe-producers": _describe_producers,
             "find-hanging": _find_hanging, "abort": _abort, "forceTerminateTransaction": _force_terminate}

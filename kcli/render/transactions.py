"""The transactions views: ``list transactions``, ``describe transactions``, ``check
transactions`` and ``abort transaction``, in every format (JSON schemas ``kcli.transaction-list``,
``kcli.transaction-describe``, ``kcli.transaction-check``, ``kcli.transaction-abort``); plain is
kafka-transactions' layout (``java_table``: ToolsUtils.prettyPrintTable) where the tool has the
view, the Kafka tools' padded table otherwise."""

from __future__ import annotations

from kcli.model import AbortPlan, BrokerError, OpenTransaction, TransactionDescription, TransactionListing
from kcli.render.output import NULL, Output, Table, duration_cell, duration_column, json_document, time_cell


def java_table(headers: list[str], rows: list[list[str]]) -> str:
    """ToolsUtils.prettyPrintTable: each column as wide as its widest cell, left-aligned, every
    cell followed by a tab."""
    widths = [max([len(h), *(len(r[i]) for r in rows)]) for i, h in enumerate(headers)]
    return "".join("".join(cell.ljust(w) + "\t" for cell, w in zip(row, widths)) + "\n"
                   for row in [headers, *rows])


LIST_HEADERS = ["TransactionalId", "Coordinator", "ProducerId", "TransactionState"]


def render_list(out: Output, listings: list[TransactionListing]) -> None:
    if out.format == "json":
        out.json(json_document("transaction-list", transactions=[
            {"transactionalId": t.transactional_id, "coordinator": t.coordinator, "producerId": t.producer_id,
             "state": t.state} for t in listings]))
    elif out.format == "plain":
        out.write(java_table(LIST_HEADERS, [[t.transactional_id, str(t.coordinator), str(t.producer_id), t.state]
                                            for t in listings]))
    else:
        out.table(Table(["TRANSACTIONAL-ID", "COORDINATOR", "PRODUCER-ID", "STATE"],
                        [[t.transactional_id, str(t.coordinator), str(t.producer_id), t.state] for t in listings]))


def _partitions(d: TransactionDescription) -> str:
    return ",".join(f"{t}-{p}" for t, p in d.partitions)


def render_described(out: Output, found: dict[str, TransactionDescription | BrokerError], now_ms: int) -> None:
    """The descriptions; an id the coordinator does not know is a note on stderr."""
    described = [d for d in found.values() if isinstance(d, TransactionDescription)]
    if out.format == "json":
        out.json(json_document("transaction-describe", transactions=[
            {"transactionalId": d.transactional_id, "coordinator": d.coordinator, "producerId": d.producer_id,
             "producerEpoch": d.producer_epoch, "state": d.state, "timeoutMs": d.timeout_ms,
             "startTimeMs": d.start_time_ms,
             "durationMs": None if d.start_time_ms is None else now_ms - d.start_time_ms,
             "partitions": [{"topic": t, "partition": p} for t, p in d.partitions]} for d in described],
            errors=[{"transactionalId": tid, "error": e.name} for tid, e in found.items()
                    if isinstance(e, BrokerError)]))
    else:
        columns = ["TRANSACTIONAL-ID", "COORDINATOR", "PRODUCER-ID", "EPOCH", "STATE", duration_column("TIMEOUT"),
                   "STARTED", duration_column("DURATION"), "PARTITIONS"]
        out.view(Table(columns, [[d.transactional_id, str(d.coordinator), str(d.producer_id), str(d.producer_epoch),
                                  d.state, duration_cell(d.timeout_ms), time_cell(d.start_time_ms),
                                  duration_cell(None if d.start_time_ms is None else now_ms - d.start_time_ms),
                                  _partitions(d) or NULL] for d in described]))
    for tid, e in found.items():
        if isinstance(e, BrokerError):
            out.note(f"Transactional id '{tid}': {e.name}")


CHECK_COLUMNS = ["TOPIC", "PARTITION", "TRANSACTIONAL-ID", "PRODUCER-ID", "EPOCH", "START-OFFSET",
                 duration_column("AGE"), "HELD-BACK", "HANGING", "ABORT"]


def render_check(out: Output, found: list[OpenTransaction], older_than_ms: int, now_ms: int) -> None:
    """One row per open transaction: where it starts, its age (since its producer last wrote),
    the records it holds back from read_committed consumers (start offset to high watermark),
    whether it hangs, and the command that aborts it."""
    if out.format == "json":
        out.json(json_document("transaction-check", olderThanMs=older_than_ms, transactions=[
            {"topic": t.topic, "partition": t.partition, "transactionalId": t.transactional_id,
             "producerId": t.producer.producer_id, "producerEpoch": t.producer.producer_epoch,
             "coordinatorEpoch": t.producer.coordinator_epoch, "startOffset": t.start_offset,
             "lastTimestampMs": t.producer.last_timestamp, "ageMs": t.age_ms(now_ms),
             "highWatermark": t.high_watermark, "heldBack": t.held_back, "hanging": t.hanging,
             "abort": t.abort_line()} for t in found]))
        return
    out.view(Table(CHECK_COLUMNS, [[t.topic, str(t.partition), t.transactional_id or NULL, str(t.producer.producer_id),
                                    str(t.producer.producer_epoch), str(t.start_offset),
                                    duration_cell(t.age_ms(now_ms)),
                                    NULL if t.held_back is None else str(t.held_back),
                                    "yes" if t.hanging else "no", t.abort_line()] for t in found]))
    hanging = sum(t.hanging for t in found)
    if out.format == "table":
        out.prose(f"{hanging} hanging transaction(s), {len(found) - hanging} open one(s) their coordinator will "
                  "abort at their timeout." if found else "No transaction held open.")


def render_abort(out: Output, plan: AbortPlan, start_offset: int, executed: bool) -> None:
    if out.format == "json":
        out.json(json_document("transaction-abort", topic=plan.topic, partition=plan.partition,
                               startOffset=start_offset, producerId=plan.producer_id,
                               producerEpoch=plan.producer_epoch, coordinatorEpoch=plan.coordinator_epoch,
                               executed=executed))
        return
    what = (f"the transaction of producer {plan.producer_id} (epoch {plan.producer_epoch}) open at offset "
            f"{start_offset} on {plan.topic}-{plan.partition}")
    out.line(f"Aborted {what}." if executed else f"Would abort {what}: run again with --execute to write the "
                                                  "abort marker.")

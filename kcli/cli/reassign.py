"""kcli reassign partitions and kcli elect leaders (kafka-reassign-partitions,
kafka-leader-election)."""

from __future__ import annotations

from typing import List, Optional

import typer

from kcli.cli.context import out, state
from kcli.errors import UsageError

PLAN = typer.Option(None, "--reassignment-json-file",
                    help="The plan: Java's reassignment JSON (--execute, --verify, --cancel).")


def _ids(text: str, flag: str) -> list[int]:
    from kcli.inputs import INT32_MAX, parse_int, shown

    try:
        ids = [parse_int(x, 0, INT32_MAX) for x in text.split(",")]
    except ValueError:
        raise UsageError(f"{flag} takes broker ids separated by commas, not '{shown(text)}'") from None
    if len(set(ids)) != len(ids):
        raise UsageError(f"{flag} names a broker twice: '{shown(text)}'")
    return ids


def _plan(path: str | None, action: str) -> dict:
    from kcli.inputs import read_text
    from kcli.ops.reassign import parse_plan

    if not path:
        raise UsageError(f"{action} needs --reassignment-json-file")
    return parse_plan(read_text(path, "--reassignment-json-file"), path)


def reassign_partitions(
    generate: bool = typer.Option(False, "--generate", help="Propose a balanced plan for --topics over --broker-list."),
    execute: bool = typer.Option(False, "--execute", help="Start the plan's moves; a rollback plan is written first."),
    verify: bool = typer.Option(False, "--verify",
        help="Each planned partition's state; clears the throttles once all are done."),
    cancel: bool = typer.Option(False, "--cancel",
        help="Cancel the plan's moves in progress (and clear the throttles)."),
    list_: bool = typer.Option(False, "--list", help="The reassignments in progress in the cluster."),
    topics: Optional[List[str]] = typer.Option(None, "--topics",
        help="Topics to move (--generate; repeatable or comma-separated)."),
    broker_list: Optional[str] = typer.Option(None, "--broker-list",
        help="Broker ids to place replicas on, e.g. 1,2,3 (--generate)."),
    plan_file: Optional[str] = PLAN,
    throttle: Optional[int] = typer.Option(None, "--throttle",
        help="Replication throttle in bytes/s while replicas catch up (--execute)."),
    rollback_file: Optional[str] = typer.Option(None, "--rollback-file",
        help="Where --execute writes the rollback plan (default: kcli's state dir)."),
    wait: bool = typer.Option(False, "--wait",
        help="With --verify: show progress until every move is done (or --timeout)."),
    additional: bool = typer.Option(False, "--additional",
        help="--execute while other reassignments are in progress (else refused)."),
    preserve_throttles: bool = typer.Option(False, "--preserve-throttles",
        help="--verify and --cancel leave the throttles in place."),
):
    """Move partition replicas between brokers (kafka-reassign-partitions). --generate proposes
    a plan, --execute starts it (the current replicas saved first as a rollback plan), --verify
    shows progress (exit 0 when every move is done, 4 while one is in progress, 1 when one
    failed), --cancel stops moves in progress, --list shows every move in progress."""
    from kcli.errors import CheckFound, OperationError
    from kcli.ops import reassign as lib
    from kcli.render import reassign as view

    actions = [n for n, on in (("--generate", generate), ("--execute", execute), ("--verify", verify),
                               ("--cancel", cancel), ("--list", list_)) if on]
    if len(actions) != 1:
        raise UsageError("Give exactly one of --generate, --execute, --verify, --cancel or --list")
    if throttle is not None and (not execute or throttle < 1):
        raise UsageError("--throttle takes a positive number of bytes/s, with --execute")
    if wait and not verify:
        raise UsageError("--wait goes with --verify")
    if additional and not execute:
        raise UsageError("--additional goes with --execute")
    if generate:
        names = [t for value in topics or [] for t in value.split(",") if t]
        if not names or not broker_list:
            raise UsageError("--generate needs --topics and --broker-list")
        brokers = _ids(broker_list, "--broker-list")
        current, proposed = lib.generate(state().admin(), names, brokers)
        view.render_generate(out(), lib.plan_json(current), lib.plan_json(proposed))
        return
    if list_:
        view.render_list(out(), lib.ongoing(state().admin()))
        return
    plan = _plan(plan_file, actions[0])
    admin = state().admin()
    if execute:
        path, results = lib.execute(admin, plan, throttle, rollback_file, additional)
        view.render_started(out(), path, results, throttle)
        if any(results.values()):
            raise OperationError("Some partition reassignments could not be started")
        return
    if cancel:
        results = lib.cancel(admin, plan)
        if not preserve_throttles:
            lib.clear_throttles(admin, [t for t, _ in plan])
        view.render_cancelled(out(), results)
        if any(e is not None and e.code != 85 for e in results.values()):
            raise OperationError("Some partition reassignments could not be cancelled")
        return
    def show(pending: dict) -> None:             # --wait's progress, on stderr
        for line in view.progress_lines(pending, plan):
            out().note(line)

    states = lib.verify(admin, plan, state().settings.until() if wait else None, show)
    done = all(s == "complete" for s, _, _ in states.values())
    cleared = lib.clear_throttles(admin, [t for t, _ in plan]) if done and not preserve_throttles else None
    view.render_verify(out(), states, plan, cleared, [t for t, _ in plan])
    if any(s == "failed" for s, _, _ in states.values()):
        raise OperationError("Some partitions are not where the plan puts them")
    if not done:
        raise CheckFound("Reassignment still in progress")


def elect_leaders(
    preferred: bool = typer.Option(False, "--preferred", help="Elect each partition's preferred (first) replica."),
    unclean: bool = typer.Option(False, "--unclean",
        help="Elect a live replica where a partition has no leader (may lose records)."),
    topic: Optional[List[str]] = typer.Option(None, "--topic",
        help="Only these topics (repeatable; default every topic)."),
    partition: Optional[List[int]] = typer.Option(None, "--partition",
        help="Only these partitions of the one --topic (repeatable)."),
    execute: bool = typer.Option(False, "--execute", help="Hold the elections (default: a dry run)."),
    allow_data_loss: bool = typer.Option(False, "--allow-data-loss", help="Required with --unclean --execute."),
):
    """Leader elections (kafka-leader-election): a dry run lists the partitions an election would
    change; --execute holds it. --unclean gives a leaderless partition the replica Kafka's
    controller would (the first live in-sync one, else the first live one); the dry run says what
    an out-of-sync one may lose (its log end offset, the records a live replica holds beyond it,
    the offline replicas); --execute needs --allow-data-loss."""
    from kcli.errors import PartialFailure
    from kcli.ops import reassign as lib
    from kcli.render import reassign as view

    if preferred == unclean:
        raise UsageError("Give exactly one of --preferred or --unclean")
    if unclean and execute and not allow_data_loss:
        raise UsageError("An unclean election can lose records the new leader has not copied: "
                         "add --allow-data-loss to hold it")
    if partition and (not topic or len(topic) != 1):
        raise UsageError("--partition goes with exactly one --topic")
    admin = state().admin()
    candidates = lib.election_candidates(admin, topic, unclean, set(partition) if partition else None)
    results = lib.elect(admin, unclean, [(c.topic, c.partition) for c in candidates]) if execute else None
    view.render_election(out(), candidates, results, unclean)
    if results and any(e is not None and e.code != 84 for e in results.values()):
        raise PartialFailure("Some leader elections failed")

"""Checks for runbooks: exit 0 when nothing is found, 4 when something is (documented)."""

from __future__ import annotations

import time
from typing import List, Optional

import typer

from kcli.cli.context import out, state


def expansions(
    within: Optional[str] = typer.Option(None, "--within",
                                         help="How recent a partition must be: 24h (default), 30m, PT6H; a bare number "
                                              "is milliseconds."),
    group: Optional[List[str]] = typer.Option(None, "--group", "-g",
                                              help="Only these groups (repeatable; default every group)."),
    topic: Optional[List[str]] = typer.Option(None, "--topic", "-t",
                                              help="Only these topics (repeatable; default every topic but the "
                                                   "internal ones)."),
):
    """Find partitions added recently to a topic (KIP-1327 CreationTimeMs after the topic's first
    partitions'; a new topic is named in a note, not checked; on a broker without creation
    times, the partitions kcli saw added, SOURCE observed, and those it cannot tell from young
    expansions, SOURCE unknown, shown when exposed) where a consumer group loses records, or is
    about to: per group with committed offsets on the topic, whether it has committed there,
    whether the partition is younger than the group (KIP-1282), EXPOSED (no commit: the records
    a latest start would skip now) and LOST? (suspected: kcli saw the records while the group had
    no commit, and its commit is now past them). Exit 0 when nothing is exposed or lost, 4 when
    something is, 1 when a group named with --group does not exist."""
    from kcli.errors import CheckFound
    from kcli.ops import expansions as radar
    from kcli.render.expansions import render_report

    window = radar.within_ms(within)
    radar.check_names(group or [], topic or [])
    report = radar.check_expansions(state().admin(), group or [], topic or [], window, int(time.time() * 1000))
    render_report(out(), report)
    found = radar.problems(report)
    if found:
        raise CheckFound(found)


def broker(
    dry_run: bool = typer.Option(False, "--dry-run",
                                 help="List what the check would create, change and delete, and stop: nothing is "
                                      "created."),
    save: Optional[str] = typer.Option(None, "--save", metavar="FILE",
                                       help="Keep the check's topic and group and write what was seen to FILE (new), "
                                            "for a later --baseline run."),
    baseline: Optional[str] = typer.Option(None, "--baseline", metavar="FILE",
                                           help="A --save file: check that its topic's and group's creation times "
                                                "survived the leader change or restart made since, then delete them."),
    clock_skew: Optional[str] = typer.Option(None, "--clock-skew",
                                             help="How far the brokers' clocks may be from this host's: 1s (default), "
                                                  "200ms, PT2S."),
):
    """Check the cluster against the proposals' rules: KIP-1327 CreationTimeMs (present, equal to
    the topic's creation, the expansion's time for added partitions) and PartitionAgeMs, KIP-1282
    GroupCreationTimeMs (stamped once, not moved by rebalances or commits), ConsumerGroupHeartbeat
    v2's layout (its answer read both ways: accepted KIP-1327's, or the seed's), KIP-937 (a batch with
    one record beyond the bound is rejected whole, naming it), KIP-734 (max-timestamp is the first
    offset among ties), and ListOffsets' special timestamps -1 to -5 as the broker's advertised
    version says. Each rule is PASS, FAIL or UNSUPPORTED (the broker does not advertise what the
    rule needs), with the evidence. The check creates its own topic and group, named
    kcli-check-broker-<hex>, and deletes them at the end, even after a failed step (the clean-up
    has a --timeout of its own; what it cannot delete is named); nothing else is changed. kcli restarts
    no broker and moves no leader: the leader-change and restart rules take two runs (--save FILE,
    then the leader change or restart, then --baseline FILE) and are UNSUPPORTED otherwise. Broker
    times must fall within the request's round trip on this host's clock, widened by
    --clock-skew. Exit 0 when every rule passes or is unsupported, 1 when any fails."""
    from kcli.ops import broker_check as bc
    from kcli.render.broker_check import render_dry_run, render_report

    skew = bc.skew_ms(clock_skew)
    bc.check_save_path(save)
    base = None
    if baseline is not None:
        base = dict(bc.read_baseline(baseline), file=baseline)
    name = bc.check_name()
    admin = state().admin()
    if dry_run:
        render_dry_run(out(), name, bc.dry_run_actions(name, bc.broker_count(admin), base))
        return
    report = bc.run(admin, name, skew, base, save)
    render_report(out(), report)
    failed = report.failed()
    if failed:
        from kcli.errors import OperationError

        raise OperationError(f"{len(failed)} rule(s) failed: {', '.join(r.rule for r in failed)}")


def transactions(
    older_than: Optional[str] = typer.Option(None, "--older-than",
                                             help="How long a transaction must have been open (since its producer "
                                                  "last wrote): 15m (default: transaction.max.timeout.ms's default), "
                                                  "0, PT1H; a bare number is milliseconds."),
    topic: Optional[List[str]] = typer.Option(None, "--topic", "-t",
                                              help="Only these topics (repeatable; default every topic)."),
):
    """Find the transactions that hold partitions' last stable offset (LSO) back: per partition,
    every transaction open longer than --older-than, with its transactional id, producer id and
    epoch, start offset, AGE, HELD-BACK (the records from its start to the high watermark that
    read_committed consumers cannot read yet), whether it HANGS (its coordinator no longer counts
    the partition in it, so nothing but an abort marker ends it: kafka-transactions find-hanging's
    rule) and the abort command line. An open transaction that does not hang is aborted by its
    coordinator at its timeout. Exit 0 when none hangs, 4 when one does."""
    from kcli.errors import CheckFound
    from kcli.ops import transactions as lib
    from kcli.render.transactions import render_check

    older = lib.duration_ms("--older-than", older_than)
    older = lib.DEFAULT_MAX_TIMEOUT_MIN * 60_000 if older is None else older
    now = int(time.time() * 1000)
    found = lib.check(state().admin(), topic or None, older, now)
    render_check(out(), found, older, now)
    hanging = [t for t in found if t.hanging]
    if hanging:
        raise CheckFound(f"{len(hanging)} hanging transaction(s): "
                         + ", ".join(f"{t.topic}-{t.partition} at {t.start_offset}" for t in hanging))

"""reset-offsets' execution: the rollback file first, then one OffsetCommit per group (in
batches that keep its records in __consumer_offsets under 512 KiB: kcli.admin.wire.group_offsets.commit_batches)
on kcli's own connection, a read-back of what got no answer, each partition classified applied,
not applied or unknown; ``report`` and ``finish`` turn the outcomes into the exit code."""

from __future__ import annotations

import time

from kcli.errors import (AUTHORIZATION_FAILED, EXIT_FAILED, EXIT_OK, BrokerRejected, KcliError, OperationError,
                         PartialFailure)
from kcli.model import NOT_AUTHORIZED, BrokerError, GroupPlan, PlanWarning
from kcli.ops.failures import raise_for, unanswered
from kcli.ops.resets import gather
from kcli.ops.resets.gather import Steps, committed_offsets
from kcli.ops.resets.rollback import write_rollback
from kcli.ops.streams import describe_any
from kcli.datatypes import field, datatype

TYPE_CHECKING = False
if TYPE_CHECKING:
    from kcli.admin import Admin


APPLIED, NOT_APPLIED, UNKNOWN = "applied", "not applied", "unknown"


@datatype
class ResetResult:
    """A reset's plans and, once executed, what it did: per (group, topic, partition),
    (APPLIED | NOT_APPLIED | UNKNOWN, why) for every partition that was not simply applied, and
    notes (replies lost but read back). ``skips``: the planner's skip warnings, ``replays`` its
    replay warnings (one per group); ``refused``: the plan skips unread records and --allow-skip
    was not given."""
    plans: list[GroupPlan]
    executed: bool = False
    rollback_file: str | None = None
    outcomes: dict[tuple[str, str, int], tuple[str, str]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    skips: list[PlanWarning] = field(default_factory=list)
    replays: list[PlanWarning] = field(default_factory=list)
    refused: bool = False
    errors: dict[str, dict[tuple[str, int], BrokerError]] = field(default_factory=dict)


def classify(planned: dict[tuple[str, int], int], before: dict[tuple[str, int], int | None],
             errors: dict, reread: dict[tuple[str, int], int | None] | None) -> dict:
    """(APPLIED | NOT_APPLIED | UNKNOWN, why) per partition of one group's commit: ``errors`` is
    the commit's answer per partition (a BrokerError or None), ``reread`` the committed offsets
    read back afterwards (None when they could not be read). A commit that was sent and not
    answered is never "not applied": the broker may still apply it (it waits up to
    offsets.commit.timeout.ms), so unless the new offset is read back it is unknown."""
    out = {}
    for tp, new in planned.items():
        err = errors.get(tp)
        if err is None:
            out[tp] = (APPLIED, "")
        elif not unanswered(err):
            out[tp] = (NOT_APPLIED, err.message)
        elif reread is None:
            out[tp] = (UNKNOWN, f"{err.message}; the committed offset could not be read back")
        elif reread.get(tp) == new:
            out[tp] = (APPLIED, f"{err.message}, but the committed offset read back is the new one")
        else:
            got = reread.get(tp)
            was = "unchanged" if got == before.get(tp) else "absent" if got is None else got
            out[tp] = (UNKNOWN, f"{err.message}; the committed offset read back is {was}, but the "
                                "commit may still be applied")
    return out


def execute(admin: Admin, plans: list[GroupPlan], rollback: str, with_group: bool,
            progress=None) -> ResetResult:
    """Writes the rollback file, then commits each group's plan: one OffsetCommit per group and
    batch, on kcli's own connection (and one OffsetDelete where a restore removes offsets). A
    commit without an answer is checked by reading the committed offsets back, within the
    command's deadline: each partition ends up applied, not applied or unknown (``report``).
    ``progress`` (done, total) counts groups."""
    steps = Steps(progress, len(plans))
    write_rollback(rollback, plans, with_group)
    result = ResetResult(plans, executed=True, rollback_file=rollback)
    for plan in plans:
        commits = {(p.topic, p.partition): p.new for p in plan.partitions if p.new is not None}
        before = {(p.topic, p.partition): p.current for p in plan.partitions}
        deletes = [(p.topic, p.partition) for p in plan.partitions if p.new is None]
        outcome = {}
        if commits:
            # A quarter of what is left (2 s at most) is kept for reading an unanswered commit back.
            left = admin.settings.remaining_s()
            errors = admin.alter_group_offsets(plan.group, commits, until=time.monotonic() + left - min(2.0, left / 4))
            reread = None
            if any(unanswered(e) for e in errors.values()):
                try:      # on a new connection: the commit's was closed when it got no answer
                    reread = committed_offsets(admin, plan.group, list(commits))
                except OperationError:      # no answer either: the outcome stays unknown
                    reread = None
            outcome.update(classify(commits, before, errors, reread))
            failed = {tp: e for tp, e in errors.items() if e is not None and outcome[tp][0] != APPLIED}
            if failed:
                result.errors[plan.group] = failed
        if deletes:
            outcome.update(_delete_for_restore(admin, plan.group, deletes))
            if not commits and all(status == APPLIED for status, _ in outcome.values()):
                result.notes += _delete_if_vacant(admin, plan.group)
        for (t, p), (status, why) in outcome.items():
            if status != APPLIED:
                result.outcomes[(plan.group, t, p)] = (status, why)
            elif why:
                result.notes.append(f"Group {plan.group}, partition {t}-{p}: {why}")
        steps.after(None)
    return result


def _delete_for_restore(admin: Admin, group: str, partitions: list[tuple[str, int]]) -> dict:
    """A restore's partitions that had no committed offset: their offsets are deleted."""
    try:
        group_error, per = admin.delete_group_offsets(group, partitions)
    except OperationError as exc:    # unanswered: it may or may not have happened; not sent: it did not
        status = UNKNOWN if isinstance(exc, BrokerRejected) and unanswered(exc.error) else NOT_APPLIED
        return {tp: (status, f"deleting the committed offset: {exc}") for tp in partitions}
    return {tp: (APPLIED, "") if (per.get(tp) or group_error) is None
            else (NOT_APPLIED, f"deleting the committed offset: {(per.get(tp) or group_error).message}")
            for tp in partitions}


def _delete_if_vacant(admin: Admin, group: str) -> list[str]:
    """A restore that deleted every offset it names (the rollback of a reset that created the
    group): a group left without any committed offset and without members is deleted too, as
    before that reset (the broker would expire it anyway). The notes saying what happened."""
    try:
        if committed_offsets(admin, group) or describe_any(admin, [group])[0][0].members:
            return []
        error: BrokerError | OperationError | None = admin.delete_groups([group])[group]
    except OperationError as exc:
        error = exc
    if error is None:
        return [f"Group {group}: no committed offset and no member left, as before the reset "
                "that created it: the group is deleted too"]
    return [f"Group {group}: no committed offset and no member left, but deleting the group "
            f"failed ({error.message}); `kcli delete groups {group}` removes it"]


def committed_counts(result: ResetResult) -> tuple[int, int]:
    """(partitions, groups) an executed reset applied: its commits and a restore's deletions
    that were applied (answered, or read back), and the groups they belong to."""
    applied = [(plan.group, p.topic, p.partition) for plan in result.plans if not plan.refused
               for p in plan.partitions if (plan.group, p.topic, p.partition) not in result.outcomes]
    return len(applied), len({group for group, _, _ in applied})


def commit_refusals(result: ResetResult) -> dict[str, dict[tuple[str, int], BrokerError]]:
    """Per group, the partitions whose commit the broker refused to this principal (no READ on
    the group or the topic): each error's message is the refusal in kcli.errors.NotAuthorized's
    words (Admin.alter_group_offsets)."""
    return {group: refused for group, errors in result.errors.items()
            if (refused := {tp: e for tp, e in errors.items() if e.code in AUTHORIZATION_FAILED})}


def report(result: ResetResult, refused: dict[str, dict[tuple[str, int], BrokerError]] | None = None) -> None:
    """Exit 0 when every partition was applied; OperationError (exit 1) when none was and none is
    unknown; otherwise PartialFailure (exit 3) naming what was applied, what was not and what is
    unknown. ``refused``: partitions (``commit_refusals``) named apart, left out here."""
    refused = refused or {}
    outcomes = {k: v for k, v in result.outcomes.items() if (k[1], k[2]) not in refused.get(k[0], {})}
    if not outcomes:
        return
    total = sum(len(p.partitions) for p in result.plans)
    by_status: dict[str, list[str]] = {APPLIED: [], NOT_APPLIED: [], UNKNOWN: []}
    for plan in result.plans:
        for p in sorted(plan.partitions, key=lambda p: (p.topic, p.partition)):
            if (p.topic, p.partition) in refused.get(plan.group, {}):
                continue
            status, why = outcomes.get((plan.group, p.topic, p.partition), (APPLIED, ""))
            by_status[status].append(f"group '{plan.group}' {p.topic}-{p.partition}"
                                     + (f" ({why})" if why else ""))
    total -= sum(map(len, refused.values()))
    detail = "; ".join(f"{status}: {', '.join(items)}" for status, items in by_status.items() if items)
    failed, unknown = len(by_status[NOT_APPLIED]), len(by_status[UNKNOWN])
    raise_for(total, failed, f"No offsets were committed ({total} partitions): {detail}"
              if failed == total else f"{len(by_status[APPLIED])} of {total} partitions committed, "
              f"{failed} not, {unknown} unknown: {detail}", unknown)


def finish(result: ResetResult) -> None:
    """The exit code of a reset (see ``report``); a refused one is exit 1, nothing committed.
    Groups not reset (active ones; those this principal may not describe) and commits refused
    to this principal: one line each, in the words of every command for a refusal
    (``refusal_text``, kcli.errors.NotAuthorized); then exit 1 when no group was reset (or
    planned) and nothing is unknown, 3 when some were."""
    if result.refused:
        raise OperationError(f"Nothing was committed: the reset skips unread records on "
                             f"{len(result.skips)} partition(s) (above); add --allow-skip to commit it")
    skipped = [p for p in result.plans if p.refused]
    denied = commit_refusals(result)
    if not skipped and not denied:
        return report(result)
    lines = list(dict.fromkeys([*(gather.refusal_text(p.refused) for p in skipped if p.refused),
                                *(_refused_commit(group, words) for group, words in denied.items())]))
    code = EXIT_OK
    try:
        report(result, denied)
    except KcliError as exc:
        code = exc.exit_code
        lines.append(exc.message)
    if len(skipped) == len(result.plans) or code == EXIT_FAILED or (
            code == EXIT_OK and denied and not committed_counts(result)[0]):       # nothing applied anywhere
        raise OperationError("\n".join(lines))
    untouched = {p.group for p in result.plans if not p.refused and _untouched(result, p)}
    kinds = {"active": [p.group for p in skipped if p.refused and p.refused.kind != NOT_AUTHORIZED],
             "refused": [p.group for p in skipped if p.refused and p.refused.kind == NOT_AUTHORIZED]
             + [g for g in denied if g in untouched],
             "failed": [g for g in untouched if g not in denied]}
    not_these = "; ".join(f"not the {which} ones: {', '.join(groups)}" for which, groups in kinds.items() if groups)
    in_part = [g for g in denied if g not in untouched]
    done = "reset" if result.executed else "planned"
    summary = f"{len(result.plans) - len(skipped) - len(untouched)} of {len(result.plans)} groups {done}"
    raise PartialFailure("\n".join([*lines, "; ".join([summary, *([not_these] if not_these else []),
                                                        *([f"in part: {', '.join(in_part)}"] if in_part else [])])]))


def _untouched(result: ResetResult, plan: GroupPlan) -> bool:
    """An executed plan none of whose partitions was applied or is unknown."""
    return result.executed and bool(plan.partitions) and all(
        result.outcomes.get((plan.group, p.topic, p.partition), (APPLIED, ""))[0] == NOT_APPLIED
        for p in plan.partitions)


def _refused_commit(group: str, errors: dict[tuple[str, int], BrokerError]) -> str:
    """One line for a group's commit refused to this principal: the refusal, as every command
    words it; a topic's names the group too (the group's names itself)."""
    said = dict.fromkeys((AUTHORIZATION_FAILED[e.code], e.message) for e in errors.values())
    return "; ".join(words if resource == "group" else f"group '{group}': {words}" for resource, words in said)


def read_back(admin: Admin, result: ResetResult) -> dict[str, str | None]:
    """Per reset group (not the refused ones), None when every offset the reset planned is read
    back as committed (one OffsetFetch per coordinator for all of them), else why not: some
    commit was not applied or its outcome is unknown, the offsets could not be read, or they
    differ (another client committed since). What must hold before anything that cannot be
    undone follows a reset (kafka-streams-groups deleting the group's internal topics)."""
    plans = [p for p in result.plans if not p.refused] if result.executed else []
    incomplete = {group for group, _, _ in result.outcomes}
    why: dict[str, str | None] = {p.group: "its offsets were not all committed (above)"
                                  for p in plans if p.group in incomplete}
    ask = {p.group: [(q.topic, q.partition) for q in p.partitions] for p in plans if p.group not in why}
    try:
        found = gather.committed_of_groups(admin, list(ask), ask)
    except OperationError as exc:
        return {**why, **{g: f"its committed offsets could not be read back ({exc.message})" for g in ask}}
    for plan in plans:
        if plan.group not in ask:
            continue
        got = {tp: o for tp, o in found.get(plan.group, {}).items() if o is not None and o >= 0}
        moved = [f"{p.topic}-{p.partition}" for p in plan.partitions if got.get((p.topic, p.partition)) != p.new]
        why[plan.group] = (None if not moved else f"the committed offsets read back differ from the reset on "
                                                 f"{', '.join(sorted(moved))}")
    return why

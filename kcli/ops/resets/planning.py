"""reset-offsets' planning glue: the cluster's answers (``gather``) handed to the pure planner
(``kcli.offsets.plan``), one plan per group. Every check that can refuse the reset runs before
any offset is looked up; the requests do not grow with the groups (Metadata, ListOffsets per
leader, Metadata v14, OffsetFetch v8+ and ConsumerGroupDescribe per coordinator)."""

from __future__ import annotations

from kcli.model import MISSING_GROUP, NO_PLAN, GroupPlan, PlanWarning
from kcli.offsets import plan as planner
from kcli.ops.ages import undecided_notice
from kcli.ops.resets.gather import (InputsOfMissingGroup, Steps, check_start_time_supported, group_answers,
                                    next_records, offset_answers, time_lookups)
from kcli.times import format_duration_ms

TYPE_CHECKING = False
if TYPE_CHECKING:
    from kcli.admin import Admin


def plan_reset(admin: Admin, ids: list[str], specs: list[str], all_topics: bool,
               scenario: planner.Scenario, now_ms: int,
               file_offsets: dict[str, dict[tuple[str, int], int]] | None = None,
               progress=None, execute: bool = False, committed_only: bool = False,
               refusals: bool = False) -> list[GroupPlan]:
    """Every check that can refuse the reset runs before any offset is looked up. ``progress``
    (done, total) is told of each request round: the committed offsets, then the log offsets.
    ``execute``: the plans are to be committed (a missing group's warning says it is created).
    A streams group is not reset on --topic partitions it has not committed; with
    ``committed_only`` no group is (kafka-streams-groups, which takes every group for one). A
    group this principal may not describe raises its NotAuthorized or, with ``refusals``, gets
    no plan but its refusal (NOT_AUTHORIZED), as an active group."""
    if scenario.kind == planner.START_TIME:
        check_start_time_supported(admin, streams_only=committed_only)
    groups = group_answers(admin, ids, refusals)
    if committed_only and all_topics:
        absent = [g for g in ids if g in groups.missing]
        if absent:
            raise InputsOfMissingGroup(absent[0])
    active = {**groups.refusals, **groups.active}
    every_id, ids = ids, [g for g in ids if g not in active]     # an active group gets no plan
    if not ids:
        return [GroupPlan(g, refused=active[g]) for g in every_id]
    steps = Steps(progress, 3 + scenario.is_time + (scenario.kind == planner.MAX_AGE))
    created = groups.creation_times(admin, ids) if scenario.kind == planner.START_TIME else {}
    checked = ([] if scenario.kind == planner.FILE else ids if committed_only
               else [g for g in ids if g in groups.streams])
    answers = offset_answers(admin, ids, specs, all_topics, steps, kind=scenario.kind, file_offsets=file_offsets,
                             inputs=groups.inputs, committed_only=checked, now_ms=now_ms,
                             age_limit_ms=scenario.number if scenario.kind == planner.MAX_AGE else None)
    missing = groups.missing
    active.update(answers.refused)
    ids = [g for g in ids if g not in active]
    lookups_by_ts: dict[int, dict] = {}
    if scenario.is_time:
        targets = {g: planner.lookup_timestamp(scenario, now_ms, created.get(g)) for g in ids}
        lookups_by_ts = steps.after(time_lookups(admin, set(targets.items()), answers.selection))

    plans = []
    for g in every_id:
        if g in active:
            plans.append(GroupPlan(g, refused=active[g]))
            continue
        lookups = lookups_by_ts[targets[g]] if scenario.is_time else None
        plan = planner.plan_group(g, scenario, answers.positions(g),
                                  lookups=lookups, ages=answers.ages, file_offsets=(file_offsets or {}).get(g))
        if scenario.is_time:
            plan.reset_to_ms = targets[g]
        if scenario.kind == planner.FILE and g not in (file_offsets or {}):
            plan.warnings.append(PlanWarning(NO_PLAN, g))
        if g in missing:
            plan.warnings.append(PlanWarning(MISSING_GROUP, g, execute=execute))
        plans.append(plan)
    next_records(admin, [p for plan in plans for p in plan.partitions])
    if scenario.kind == planner.MAX_AGE:
        notice = undecided_notice(plans, format_duration_ms(scenario.number))
        if notice:
            admin.warn(notice)
    return plans

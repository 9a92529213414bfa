"""``reset-offsets --compare``: every reset policy side by side, a dry run by construction.

The cluster is asked once, by the reset's own gathering (``kcli.ops.resets.gather``:
``group_answers`` and ``offset_answers``, the same group and scope checks, one OffsetFetch per
coordinator, one ListOffsets call each for the log starts and ends, one per distinct timestamp
for the time policies, Metadata v14 for the partition ages, one ConsumerGroupDescribe for the
creation times); each policy is then planned by the planner itself, so each column is exactly
what that policy's dry run plans. A policy the broker cannot serve (--to-start-time without
KIP-1282, --max-age without KIP-1327) is not available, with the reason.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import TYPE_CHECKING

from kcli.errors import OperationError, UsageError
from kcli.model import MISSING_GROUP, PlanWarning
from kcli.offsets import plan as planner
from kcli.offsets.compare import Comparison, Policy, PolicyPlans, comparison
from kcli.ops.ages import undecided_notice
from kcli.ops.failures import raise_refusals
from kcli.ops.groups import group_ids
from kcli.ops.resets.gather import (Steps, check_resettable, group_answers, next_records, offset_answers, refusal_text,
                                    time_lookups)
from kcli.ops.resets.request import SCENARIOS, ResetFlags, check_groups, check_topics, is_given
from kcli.datatypes import datatype
from kcli.specs import datetime_arg, duration_arg
from kcli.times import TimeParseError, format_duration_ms, timestamp_before

if TYPE_CHECKING:
    from kcli.admin import Admin

DEFAULT_WINDOW = "1h"
TAKES = ("to-datetime", "by-duration")          # the scenario flags --compare reads
NOT_WITH = {"execute": "--execute", "export": "--export", "rollback_file": "--rollback-file",
            "allow_skip": "--allow-skip"}


@datatype
class CompareRequest:
    groups: list[str]
    all_groups: bool
    topics: list[str]
    all_topics: bool
    policies: list[Policy]


def policies(max_age: str | None, by_duration: str | None, to_datetime: str | None,
             now_ms: int) -> list[Policy]:
    """earliest, latest, to-start-time, latest --max-age D, by-duration D, and to-datetime when
    given. D: --max-age's and --by-duration's own values; one given alone is D for both; neither,
    1h."""
    given = [(flag, text) for flag, text in (("--max-age", max_age), ("--by-duration", by_duration))
             if text is not None]                                            # "" is given (and refused)
    fallback = given[0] if given else ("--max-age", DEFAULT_WINDOW)
    age_flag, age_text = ("--max-age", max_age) if max_age is not None else fallback
    window_flag, window_text = ("--by-duration", by_duration) if by_duration is not None else fallback
    age_ms, window_ms = duration_arg(age_flag, age_text), duration_arg(window_flag, window_text)
    try:
        timestamp_before(now_ms, window_ms)             # not before the epoch: refused now
    except TimeParseError as exc:
        raise UsageError(f"{window_flag}: {exc}") from None
    at_ms = datetime_arg("--to-datetime", to_datetime) if to_datetime is not None else None
    out = [Policy("EARLIEST", "to-earliest", planner.Scenario(planner.EARLIEST)),
           Policy("LATEST", "to-latest", planner.Scenario(planner.LATEST)),
           Policy("START-TIME", "to-start-time", planner.Scenario(planner.START_TIME)),
           Policy(f"MAX-AGE-{age_text}", f"to-latest --max-age {age_text}",
                  planner.Scenario(planner.MAX_AGE, age_ms), asked=max_age is not None),
           Policy(f"BY-DURATION-{window_text}", f"by-duration {window_text}",
                  planner.Scenario(planner.DURATION, window_ms), asked=by_duration is not None)]
    if at_ms is not None:
        out.append(Policy("DATETIME", f"to-datetime {to_datetime}", planner.Scenario(planner.DATETIME, at_ms),
                          asked=True))
    return out


def request(flags: ResetFlags, now_ms: int) -> CompareRequest:
    """--compare's flags (reset-offsets' own), checked before any request (UsageError, exit 2):
    the group and topic scopes as reset-offsets takes them; of the scenarios only --to-datetime
    and --by-duration (with --max-age, the policies' parameters); nothing that applies a plan."""
    for name, flag in NOT_WITH.items():
        if is_given(getattr(flags, name)):
            raise UsageError(f"--compare is a dry run: it cannot be used with {flag}")
    other = flags.scenario.given([n for n in SCENARIOS if n not in TAKES])
    if other:
        raise UsageError(f"--compare compares every policy: it cannot be used with --{other[0]} "
                         "(it takes --to-datetime, --by-duration and --max-age)")
    check_groups(flags.groups, flags.all_groups)
    check_topics(flags.topics, flags.all_topics)
    return CompareRequest(flags.groups, flags.all_groups, flags.topics, flags.all_topics,
                          policies(flags.max_age, flags.scenario.by_duration, flags.scenario.to_datetime, now_ms))


def compare(admin: Admin, req: CompareRequest, now_ms: int, stage=None) -> Comparison:
    """Plans every policy of ``req`` over the same answers; never commits. The groups this
    principal may not describe are left out and named (``Comparison.refused``); when that is
    every group, their refusals are raised (exit 1)."""
    stage = stage or _no_stage
    ids = group_ids(admin, req.groups, req.all_groups)
    with stage("Comparing reset policies") as progress:
        return _compare(admin, ids, req, now_ms, Steps(progress, len(ids) + 5))


def _compare(admin: Admin, ids: list[str], req: CompareRequest, now_ms: int, steps) -> Comparison:
    groups = group_answers(admin, ids, refusals=True)
    refused = [refusal_text(r) for r in groups.refusals.values()]
    if refused and len(refused) == len(ids):
        raise_refusals(len(ids), [OperationError(words) for words in refused], shown=False)
    ids = [g for g in ids if g not in groups.refusals]
    check_resettable(groups.descs)
    kinds = {p.scenario.kind for p in req.policies}
    created, start_errors = groups.start_times(admin, ids) if planner.START_TIME in kinds else ({}, {})
    age_limit = next((p.scenario.number for p in req.policies if p.scenario.kind == planner.MAX_AGE), None)
    answers = offset_answers(admin, ids, req.topics, req.all_topics, steps, inputs=groups.inputs,
                             age_limit_ms=age_limit, now_ms=now_ms)
    targets: dict[tuple[str, str], int] = {}          # (policy label, group) -> timestamp
    for p in req.policies:
        if p.scenario.is_time:
            for g in ids:
                if p.scenario.kind != planner.START_TIME or g in created:
                    targets[(p.label, g)] = planner.lookup_timestamp(p.scenario, now_ms, created.get(g))
    lookups = steps.after(time_lookups(admin, {(g, ts) for (_, g), ts in targets.items()}, answers.selection))

    columns, warnings = [], []
    positions_of = {g: answers.positions(g) for g in ids}
    ages = answers.ages
    del answers      # in the positions now (100k partitions: ~45 MB)
    for policy in req.policies:
        column = PolicyPlans(policy)
        for g in ids:
            if policy.scenario.kind == planner.START_TIME and g in start_errors:
                column.unavailable[g] = str(start_errors[g])
                continue
            ts = targets.get((policy.label, g))
            column.plans[g] = planner.plan_group(g, policy.scenario, positions_of[g],
                                                 lookups=lookups[ts] if ts is not None else None, ages=ages)
        columns.append(column)
    # as a dry run counts them: no skip past transaction markers and aborted records only
    next_records(admin, [p for c in columns for plan in c.plans.values() for p in plan.partitions])
    for column in columns:
        for plan in column.plans.values():
            warnings += [(column.policy.label, w) for w in plan.warnings]
        if column.policy.scenario.kind == planner.MAX_AGE:
            notice = undecided_notice(list(column.plans.values()), format_duration_ms(column.policy.scenario.number))
            if notice:
                admin.warn(notice)
    warnings += [("", PlanWarning(MISSING_GROUP, g)) for g in ids if g in groups.missing]
    every_plan = next((list(c.plans.values()) for c in columns if c.plans), [])
    return comparison(every_plan, columns, list(dict.fromkeys(warnings)), refused)


@contextmanager
def _no_stage(_description):
    yield None

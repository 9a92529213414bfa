"""reset-offsets: from the flags to the commit, one job per module:

- ``request``: the flags, checked and read into a ``ResetRequest`` before any request;
- ``gather``: the cluster's answers (group states and creation times, committed offsets, log
  offsets, time lookups, next records), shared with ``--compare`` (``kcli.ops.compare``);
- ``planning``: those answers handed to the pure planner (``kcli.offsets.plan``);
- ``rollback``: the rollback file, the exact undo, written before any commit;
- ``share``: a share group's start offsets as the reset's committed offsets (``ShareStore``);
- ``execution``: the commits, the read-back of unanswered ones, each partition's outcome and the
  exit code (``report``, ``finish``).

``reset`` runs them in that order. Request counts do not grow with the partition count, and
the planning's not with the groups."""

from __future__ import annotations

from contextlib import contextmanager

from kcli.errors import OperationError
from kcli.model import NOT_AUTHORIZED
from kcli.offsets import plan as planner
from kcli.ops.failures import raise_refusals
from kcli.ops.groups import group_ids
from kcli.ops.resets import gather
from kcli.ops.resets.execution import ResetResult, committed_counts, execute, finish
from kcli.ops.resets.gather import (BROKER_TOO_OLD, CLASSIC_GROUP, GROUP_MISSING, NO_CREATION_TIME,
                                    NOT_RECORDED, TOO_OLD_FOR_START_TIME, InputsOfMissingGroup,
                                    MissingPartitions, StartTimeUnavailable, StartTimeUnsupported,
                                    group_start_time)
from kcli.ops.resets.planning import plan_reset
from kcli.ops.resets.request import ResetFlags, ResetRequest, ScenarioFlags, request
from kcli.ops.resets.rollback import rollback_path
from kcli.ops.resets.share import ShareStore, share_view

TYPE_CHECKING = False
if TYPE_CHECKING:
    from kcli.admin import Admin

__all__ = ["BROKER_TOO_OLD", "CLASSIC_GROUP", "GROUP_MISSING", "NOT_RECORDED", "NO_CREATION_TIME",
           "TOO_OLD_FOR_START_TIME", "InputsOfMissingGroup", "MissingPartitions", "ResetFlags", "ResetRequest",
           "ResetResult", "ScenarioFlags", "ShareStore", "StartTimeUnavailable", "StartTimeUnsupported",
           "committed_counts", "execute", "finish", "group_start_time", "request", "reset", "share_view"]


def reset(admin: Admin, req: ResetRequest, now_ms: int, stage=None) -> ResetResult:
    """Plans the reset and, with ``execute``, commits it, unless it skips unread records without
    ``allow_skip`` (then ``refused`` and nothing is committed). A group this principal may not
    describe gets its refusal for a plan (NOT_AUTHORIZED) and the others are reset; the
    kafka-consumer-groups drop-in commits nothing then (its tool fails on such a group);
    kafka-streams-groups' raises the refusal. ``stage(description)``: a context manager
    yielding a progress callback (done, total), or None."""
    stage = stage or _no_stage
    ids = group_ids(admin, req.groups, req.all_groups, streams=req.streams_tool, and_streams=not req.consumer_tool)
    if not req.all_groups and not req.streams_tool and not req.consumer_tool:
        admin = share_view(admin, ids)               # share groups: their start offsets stand for commits
    with stage("Planning the reset") as progress:
        plans = plan_reset(admin, ids, req.topics, req.all_topics, req.scenario, now_ms,
                           req.file_offsets, progress, execute=req.execute, committed_only=req.streams_tool,
                           refusals=not req.streams_tool)
    skips = planner.skip_warnings(plans)
    refused = bool(req.execute and skips and not req.may_skip)
    replays = planner.replay_warnings(plans)
    denied = [gather.refusal_text(p.refused) for p in plans if p.refused and p.refused.kind == NOT_AUTHORIZED]
    if len(denied) == len(plans) and not req.consumer_tool:      # nothing to show: the refusals, exit 1
        raise_refusals(len(plans), [OperationError(words) for words in denied], shown=False)
    if not req.execute or refused or (denied and req.consumer_tool) or all(p.refused for p in plans):
        return ResetResult(plans, skips=skips, replays=replays, refused=refused)
    path = req.rollback_file or rollback_path(admin.cluster_id(), ids, now_ms)
    with stage("Committing offsets") as progress:
        result = execute(admin, plans, path, req.with_group, progress)
    result.skips, result.replays = skips, replays
    return result


@contextmanager
def _no_stage(_description):
    yield None

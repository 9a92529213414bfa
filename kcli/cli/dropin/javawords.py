"""The Java tools' words for what kcli's reset reports as values (``kcli.model.PlanWarning`` and
``Refusal``, ``kcli.ops.resets.StartTimeUnavailable``), and the stream each goes to: the one
place for each wording the drop-ins print, byte for byte as kafka-consumer-groups (and
kafka-streams-groups) 4.4 print it. They decide by a value's kind, never by a text, so kcli's own
wording (``kcli.render.notices``) can change without changing a drop-in's stdout. kcli's own
notes, which the Java tools do not have (a skip past unread records, a group that does not
exist), keep kcli's words on stderr."""

from __future__ import annotations

import time

from kcli.model import CLAMPED, NO_PLAN, NO_RECORD, TOPICS_NOT_IN_GROUP, PlanWarning, Refusal
from kcli.render import notices

LOG4J_WARN = "[{date}] WARN {message} (org.apache.kafka.tools.GroupOffsetsResetter)"   # 4.4's logger


def warning(w: PlanWarning) -> tuple[str, str]:
    """(stream, text) of one reset warning as the tool prints it."""
    if w.kind == CLAMPED:              # OffsetsUtils' log line
        above = w.asked is not None and w.new is not None and w.asked > w.new
        bound = "higher than latest" if above else "lower than earliest"
        message = (f"New offset ({w.asked}) is {bound} offset for topic partition {w.topic}-{w.partition}. "
                   f"Value will be set to {w.new}.")
        return "stderr", LOG4J_WARN.format(date=log4j_now(), message=message) + "\n"
    if w.kind == NO_RECORD:
        return "stdout", (f"\nWarn: Partition {w.partition} from topic {w.topic} is empty. "
                          "Falling back to latest known offset.\n")
    if w.kind == NO_PLAN:
        return "stdout", f"\nError: No reset plan for group {w.group} found.\n"
    return "stderr", f"Warn: {notices.text(w)}\n"          # kcli's own note


def refusal(r: Refusal) -> str:
    """The tool's line (stdout) for an active group it does not reset (for one this principal
    may not describe, ``not_authorized``)."""
    if r.kind == TOPICS_NOT_IN_GROUP:
        return f"\nError: One or more topics are not part of the group '{r.group}'.\n"
    return (f"\nError: Assignments can only be reset if the group '{r.group}' is inactive, "
            f"but the current state is {r.state}.\n")


def not_authorized(r: Refusal) -> str:
    """The message of the exception kafka-consumer-groups 4.4 fails with on a group this
    principal may not describe (its describe's FindCoordinator, wrapped by resetOffsets): the
    tool stops there, resetting nothing more."""
    return ("java.util.concurrent.ExecutionException: org.apache.kafka.common.errors.GroupAuthorizationException: "
            f"FindCoordinator request for groupId `CoordinatorKey(idValue='{r.group}', type=GROUP)` failed due "
            "to authorization failure")


def start_time_error(exc, error_prefix: str) -> str:
    """The tool's line (stdout) for a --to-start-time reset without a creation time
    (``kcli.ops.resets.StartTimeUnavailable``): KIP-1282's own words, which do not tell a
    classic group apart; a missing group is the tool's error line with kcli's words."""
    from kcli.ops import resets

    if exc.reason == resets.BROKER_TOO_OLD:
        return f"\nError: {resets.TOO_OLD_FOR_START_TIME}\n"
    if exc.reason in (resets.NOT_RECORDED, resets.CLASSIC_GROUP):
        return f"\nError: {resets.NO_CREATION_TIME.format(group=exc.group)}\n"
    return f"{error_prefix}{exc.message}\n"


def log4j_now() -> str:
    now = time.time()
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(now)) + f",{int(now * 1000) % 1000:03d}"


_NODE_ASSIGNMENT = "Timed out waiting for a node assignment. Call: offsetCommit(api=OFFSET_COMMIT)"
_COORDINATOR_MOVED = (14, 15, 16)    # COORDINATOR_LOAD_IN_PROGRESS, _NOT_AVAILABLE, NOT_COORDINATOR


def commit_failure(plans, errors: dict, now_ms: int) -> str | None:
    """The message of the exception the tool's commit throws (AlterConsumerGroupOffsets 4.4), for
    the first group in the tool's order (``plans``) whose commit kcli could not apply
    (``errors``: ``ResetResult.errors``); None when every commit was applied. The admin client
    retries a coordinator that moved until its deadline; a commit without an answer times out;
    any other error fails the partitions it names, listed in the response map's order."""
    from kcli import javaorder
    from kcli.ops.failures import unanswered

    for plan in plans:
        failed = errors.get(plan.group)
        if not failed:
            continue
        if any(unanswered(e) for e in failed.values()):
            return (f"Call(callName=offsetCommit(api=OFFSET_COMMIT), deadlineMs={now_ms}, tries=1, "
                    f"nextAllowedTryMs={now_ms + 100}) timed out at {now_ms} after 1 attempt(s)")
        if any(e.code in _COORDINATOR_MOVED or e.name == "_NOT_SENT" for e in failed.values()):
            return _NODE_ASSIGNMENT
        every = [(p.topic, p.partition) for p in plan.partitions if p.new is not None]
        listed = [f"{t}-{p}" for t, p in javaorder.topic_partitions(every)
                  if (t, p) in failed]
        return f"Failed altering group offsets for the following partitions: [{', '.join(listed)}]"
    return None

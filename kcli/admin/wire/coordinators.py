"""Group coordinators on kcli's own connection: FindCoordinator (batched from v4), the groups per
coordinator, and the one retry rule for a coordinator that moved, is not available or is loading
(``Backoff``, librdkafka's pauses), which every group request follows."""

from __future__ import annotations

import time

from kcli.admin.wire.base import WireBase
from kcli.errors import OperationError, UnsupportedByBroker

GROUP_ID_NOT_FOUND = 69
COORDINATOR_MOVED = (15, 16)                    # COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR
COORDINATOR_LOADING = 14                        # COORDINATOR_LOAD_IN_PROGRESS: the same one, later
# FindCoordinator asked again for keys answered with these, as librdkafka does: after a pause
# from COORDINATOR_BACKOFF_S doubling to COORDINATOR_BACKOFF_MAX_S, while the deadline leaves
# COORDINATOR_MIN_ROUND_S for one more request after it.
COORDINATOR_RETRIABLE = (COORDINATOR_LOADING, *COORDINATOR_MOVED)
COORDINATOR_BACKOFF_S = 0.1
COORDINATOR_BACKOFF_MAX_S = 1.0
COORDINATOR_MIN_ROUND_S = 0.05


class Backoff:
    """The pauses between rounds of group requests answered with a retriable coordinator error
    (COORDINATOR_RETRIABLE), as librdkafka's: COORDINATOR_BACKOFF_S doubling up to
    COORDINATOR_BACKOFF_MAX_S, while ``end`` (time.monotonic) leaves time for one more round."""

    def __init__(self, end: float, round_s: float = COORDINATOR_MIN_ROUND_S):
        self.end, self.round_s = end, round_s          # ``round_s``: what one more round needs
        self.pause, self.start = COORDINATOR_BACKOFF_S, time.monotonic()

    def wait(self) -> bool:
        """Pause before the next round; False, at once, when ``end`` leaves no time for one."""
        left = self.end - time.monotonic()
        if left < 2 * self.round_s:
            return False
        time.sleep(min(self.pause, left - self.round_s))     # the last round by ``end``
        self.pause = min(2 * self.pause, COORDINATOR_BACKOFF_MAX_S)
        return True


class CoordinatorRequests(WireBase):
    # -- groups: coordinators -------------------------------------------------------------
    def find_coordinators(self, group_ids: list[str], until: float | None = None,
                          refusals: dict | None = None) -> dict[str, int]:
        """Coordinator node id per group: one FindCoordinator for the groups this client has not
        asked about yet (v4+ batches every key; older versions take one request per group), by
        ``until`` when given (see ``send``), else the command's deadline. Keys answered with a
        retriable coordinator error (COORDINATOR_NOT_AVAILABLE: a fresh cluster until
        __consumer_offsets exists; COORDINATOR_LOAD_IN_PROGRESS; NOT_COORDINATOR) are asked
        again after a pause that doubles from COORDINATOR_BACKOFF_S up to COORDINATOR_BACKOFF_MAX_S
        (librdkafka's retry.backoff.ms and retry.backoff.max.ms), until that deadline; then one
        OperationError names the groups still without a coordinator. A group this principal may
        not describe raises its NotAuthorized or, given ``refusals``, goes into it ({group:
        NotAuthorized}) and is left out."""
        from kafka.errors import for_code
        from kafka.protocol.metadata import FindCoordinatorRequest as Req

        found = {g: self._coordinators[g] for g in group_ids if g in self._coordinators}
        pending = [g for g in dict.fromkeys(group_ids) if g not in found]
        if not pending:
            return found
        version = self.max_version(Req)
        if version is None:
            raise UnsupportedByBroker("The broker does not support FindCoordinator")
        backoff = Backoff(self.settings.until() if until is None else until)
        while True:                                # bounded by the deadline (Backoff)
            answers = self._find_coordinators_once(Req, version, pending, backoff.end)
            # a key the answer leaves out is asked again, as Java's admin client does
            answered = {key for key, _, _ in answers}
            retry: dict[str, int | None] = {key: None for key in pending if key not in answered}
            for key, code, node in answers:
                if code in COORDINATOR_RETRIABLE:
                    retry[key] = code
                elif code:
                    refusal = self.refused(code, "FindCoordinator", key)
                    if refusal is not None and refusals is not None:
                        refusals[key] = refusal
                        continue
                    raise refusal or OperationError(
                        f"Cannot find the coordinator of group '{key}': {for_code(code).description}")
                else:
                    found[key] = self._coordinators[key] = node
            if not retry:
                return found
            if not backoff.wait():
                waited = round((time.monotonic() - backoff.start) * 1000)
                when = (f"before the command's deadline (--timeout {self.settings.timeout_ms} ms) passed"
                        if until is None else f"in the {waited} ms kcli waited")
                raise OperationError(_coordinators_not_found(retry, when))
            pending = list(retry)

    def _find_coordinators_once(self, Req, version: int, group_ids: list[str], until: float):
        """(key, error code, node id) per group from one FindCoordinator (v4+) or one per group."""
        if version >= 4:
            resp = self.send(Req(version=version, key_type=0, coordinator_keys=list(group_ids)), until=until)
            return [(c.key, c.error_code, c.node_id) for c in resp.coordinators]
        answers = []
        for g in group_ids:
            resp = self.send(Req(version=version, key=g, key_type=0) if version >= 1
                             else Req(version=version, key=g), until=until)
            answers.append((g, resp.error_code, resp.node_id))
        return answers

    def _by_coordinator(self, group_ids: list[str], refusals: dict | None = None) -> dict[int, list[str]]:
        """The groups per coordinator node (one batched FindCoordinator for those not known yet);
        ``refusals``: as ``find_coordinators``'."""
        by_node: dict[int, list[str]] = {}
        for g, node in self.find_coordinators(group_ids, refusals=refusals).items():
            by_node.setdefault(node, []).append(g)
        return by_node

    def _describe_per_coordinator(self, group_ids: list[str], request, what: str, refusals: dict | None = None):
        """``request(groups)`` to each coordinator of ``group_ids``, one per coordinator; the
        groups answered with a retriable coordinator error are asked again until the deadline
        (Backoff), then OperationError naming them. Returns ({group: (node, answer)} without
        error, {group: answer} with another error)."""
        answered, failed = {}, {}
        pending = list(dict.fromkeys(group_ids))
        backoff = Backoff(self.settings.until())
        while True:                                # bounded by the deadline (Backoff)
            moved = []
            for node, groups in self._by_coordinator(pending, refusals).items():
                for g in self.send(request(groups), node).groups:
                    if not g.error_code:
                        answered[g.group_id] = (node, g)
                    elif self._retriable(g.group_id, g.error_code):
                        moved.append(g.group_id)
                    else:
                        failed[g.group_id] = g
            if not moved:
                return answered, failed
            if not backoff.wait():
                raise OperationError(f"Cannot describe {what} '{moved[0]}'"
                                     + (f" (and {len(moved) - 1} more groups)" if len(moved) > 1 else "")
                                     + f" before the command's deadline (--timeout {self.settings.timeout_ms} ms) "
                                       "passed: its coordinator was not available (retried)")
            pending = moved

    def _retriable(self, group_id: str, code: int) -> bool:
        """True for a retriable coordinator error (COORDINATOR_RETRIABLE): the group is asked
        again, of its coordinator found anew when it moved (``_forget_moved``)."""
        return self._forget_moved(group_id, code) or code == COORDINATOR_LOADING

    def _forget_moved(self, group_id: str, code: int) -> bool:
        """After NOT_COORDINATOR or COORDINATOR_NOT_AVAILABLE, the next request finds the group's
        coordinator again. True when the code was one of them."""
        if code in COORDINATOR_MOVED:
            self._coordinators.pop(group_id, None)
            return True
        return False


def _coordinators_not_found(codes: dict[str, int | None], when: str) -> str:
    """The one line for the groups whose coordinator was still not available ``when`` time ran
    out: the first group by name, how many more, what the broker last answered for it (None:
    the answer left the group out)."""
    from kafka.errors import for_code

    groups = list(codes)
    named = f"group '{groups[0]}'" + (f" (and {len(groups) - 1} more groups)" if len(groups) > 1 else "")
    code = codes[groups[0]]
    answered = ("leaving it out of its answers" if code is None
                else f"answering {for_code(code).message}")
    return f"Cannot find the coordinator of {named} {when}: the broker kept {answered} (retried)"

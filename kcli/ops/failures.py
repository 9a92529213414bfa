"""The one rule from per-item outcomes to kcli's exit codes, for every command that acts on
several items (groups, topics, partitions): 0 when every item was done; 1 when none was and no
outcome is unknown (nothing applied); 3 otherwise (partly applied, or unknown). The message,
which names the items, is the caller's."""

from __future__ import annotations

from contextlib import contextmanager

from kcli.errors import EXIT_FAILED, EXIT_OK, EXIT_PARTIAL, BrokerRejected, OperationError, PartialFailure

# Errors after which a request that changes the cluster may or may not have been applied: no
# reply (the broker may still apply it: Kafka holds a commit up to offsets.commit.timeout.ms), or
# the broker's own timeout. Every other error answer means the broker did not apply it.
UNANSWERED = frozenset({"_TIMED_OUT", "_TRANSPORT", "_MSG_TIMED_OUT", "REQUEST_TIMED_OUT",
                        "NETWORK_EXCEPTION", "_ALL_BROKERS_DOWN"})


def unanswered(error) -> bool:
    """A BrokerError (or None) that leaves the outcome of a change unknown."""
    return error is not None and error.name in UNANSWERED


class OutcomeUnknown(BrokerRejected):
    """A change was sent and got no answer: it may or may not be applied (exit 3)."""
    exit_code = EXIT_PARTIAL


@contextmanager
def change(what: str):
    """Around one request that changes the cluster: without an answer, OutcomeUnknown (exit 3)
    saying so, never a plain failure (exit 1, nothing applied)."""
    try:
        yield
    except BrokerRejected as exc:
        if not unanswered(exc.error):
            raise
        raise OutcomeUnknown(exc.error, f"{exc.message}; {what} may or may not have been applied") from None


def exit_code(total: int, failed: int, unknown: int = 0) -> int:
    if not failed and not unknown:
        return EXIT_OK
    return EXIT_FAILED if failed == total else EXIT_PARTIAL


def raise_for(total: int, failed: int, message: str, unknown: int = 0) -> None:
    """Nothing when every item was done (``failed`` counts definite failures, ``unknown`` the
    items whose request got no answer); else OperationError (exit 1) or PartialFailure (exit 3)
    with ``message``."""
    code = exit_code(total, failed, unknown)
    if code == EXIT_FAILED:
        raise OperationError(message)
    if code == EXIT_PARTIAL:
        raise PartialFailure(message)


def per_item(results: dict) -> tuple[list, list]:
    """(failed, unknown): the keys of ``results`` ({key: BrokerError or None}) whose request the
    broker refused, and those it did not answer."""
    return ([k for k, e in results.items() if e is not None and not unanswered(e)],
            [k for k, e in results.items() if unanswered(e)])


def raise_refusals(total: int, refusals: list, shown: bool | None = None) -> None:
    """After what this principal may see of ``total`` items was shown: nothing without
    ``refusals`` (a NotAuthorized per item Kafka refused); else the refusals in one line, exit
    3 when something was ``shown`` all the same (by default: the items not refused), else exit 1
    (a lone refusal raised as it is)."""
    if not refusals:
        return
    if shown is None:
        shown = len(refusals) < total
    if not shown and len(refusals) == 1:
        raise refusals[0]
    message = "; ".join(r.message for r in refusals)
    raise PartialFailure(message) if shown else OperationError(message)

"""The one rule from per-item outcomes to kcli's exit codes, for every command that acts on
several items (groups, topics, partitions): 0 when every item was done; 1 when none was and no
outcome is unknown (nothing applied); 3 otherwise (partly applied, or unknown). The message,
which names the items, is the caller's."""

from __future__ import annotations

from kcli.errors import EXIT_FAILED, EXIT_OK, EXIT_PARTIAL, OperationError, PartialFailure


def exit_code(total: int, failed: int, unknown: int = 0) -> int:
    if not failed and not unknown:
        return EXIT_OK
    return EXIT_FAILED if failed == total else EXIT_PARTIAL


def raise_for(total: int, failed: int, message: str, unknown: int = 0) -> None:
    """Nothing when every item was done; else OperationError (exit 1) or PartialFailure (exit 3)
    with ``message``."""
    code = exit_code(total, failed, unknown)
    if code == EXIT_FAILED:
        raise OperationError(message)
    if code == EXIT_PARTIAL:
        raise PartialFailure(message)

"""reset-offsets' rollback files: the exact undo of a reset (its planned partitions' committed
offsets before it, as a --from-file CSV), written under ``$XDG_STATE_HOME/kcli/rollback/`` (or
at --rollback-file) before anything is committed, never overwritten, each one's digest kept;
and telling one of them from another CSV."""

from __future__ import annotations

import hashlib
import os
import re
import time

from kcli.errors import OperationError, UsageError
from kcli.model import GroupPlan
from kcli.offsets import plan as planner
from kcli.offsets.csvfile import export_csv
from kcli.datatypes import replace
from kcli.xdg import state_dir


def rollback_csv(plans: list[GroupPlan], with_group: bool) -> str:
    """The planned partitions' committed offsets before the reset, as a --from-file CSV: the
    exact undo. A partition without a committed offset is written with -1 (restoring it deletes
    the offset); the Java tool reads every row, moving such a partition to its log start."""
    current = [GroupPlan(plan.group, [replace(p, new=planner.NO_OFFSET if p.current is None else p.current)
                                      for p in sorted(plan.partitions, key=lambda p: (p.topic, p.partition))])
               for plan in plans]
    return export_csv(current, with_group)


def rollback_dir() -> str:
    """``$XDG_STATE_HOME/kcli/rollback/`` (``~/.local/state`` when unset): kcli's rollback files."""
    return state_dir("rollback")


def digests_path() -> str:
    """``$XDG_STATE_HOME/kcli/rollback.sha256``: the SHA-256 of every rollback file kcli wrote,
    wherever it wrote it (``sha256sum``'s format: digest, two spaces, the path it was written to)."""
    return state_dir("rollback.sha256")


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def is_own_rollback(path: str) -> bool:
    """A --from-file that is one of kcli's rollback files: a file in kcli's rollback directory
    (its real path; kcli writes there and nothing else does), or a file whose bytes are those of
    a rollback file kcli wrote anywhere (``digests_path``: a --rollback-file of another name,
    moved or copied since). Restoring one is the exact undo of a reset, so moving offsets forward
    past unread records needs no --allow-skip. Any other file (an edited one included) keeps the
    rule."""
    real = os.path.realpath(path)
    if not os.path.isfile(real):
        return False
    if os.path.dirname(real) == os.path.realpath(rollback_dir()):
        return True
    try:
        with open(real, "rb") as fh:
            digest = _digest(fh.read())
        with open(digests_path(), encoding="utf-8") as fh:
            return any(line.split("  ", 1)[0] == digest for line in fh)
    except OSError:
        return False


def rollback_path(cluster_id: str | None, groups: list[str], now_ms: int) -> str:
    """A new file in ``rollback_dir()``, named by cluster, group and time:
    ``<cluster>_<group>_<yyyymmddThhmmss.mmmZ>.csv``."""
    group = groups[0] if len(groups) == 1 else f"{groups[0]}+{len(groups) - 1}"
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime(now_ms / 1000)) + f".{now_ms % 1000:03d}Z"
    name = "_".join(re.sub(r"[^A-Za-z0-9._-]", "-", part) for part in (cluster_id or "cluster", group, stamp))
    return os.path.join(rollback_dir(), name + ".csv")


def write_rollback(path: str, plans: list[GroupPlan], with_group: bool) -> None:
    """Writes the rollback file before anything is committed, and records its digest
    (``digests_path``); never overwrites a file."""
    data = rollback_csv(plans, with_group).encode("utf-8")
    try:
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        with open(path, "xb") as fh:
            fh.write(data)
    except FileExistsError:
        raise UsageError(f"The rollback file {path} exists; kcli never overwrites one") from None
    except OSError as exc:
        raise OperationError(f"Cannot write the rollback file {path}: {exc.strerror}; "
                             "nothing was committed") from None
    try:
        os.makedirs(os.path.dirname(digests_path()), exist_ok=True)
        with open(digests_path(), "a", encoding="utf-8") as fh:
            fh.write(f"{_digest(data)}  {os.path.abspath(path)}\n")
    except OSError as exc:
        raise OperationError(f"Cannot record the rollback file's digest in {digests_path()}: {exc.strerror}; "
                             f"nothing was committed (the rollback file {path} is written)") from None

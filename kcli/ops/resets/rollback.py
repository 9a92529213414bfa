"""reset-offsets' rollback files: the exact undo of a reset (its planned partitions' committed
offsets before it, as a --from-file CSV), written under ``$XDG_STATE_HOME/kcli/rollback/``
before anything is committed, never overwritten; and telling one of them from another CSV."""

from __future__ import annotations

import os
import re
import time

from kcli.errors import OperationError, UsageError
from kcli.model import GroupPlan
from kcli.offsets import plan as planner
from kcli.offsets.csvfile import export_csv
from kcli.records import replace
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


def is_own_rollback(path: str) -> bool:
    """A --from-file that is one of kcli's rollback files: a file in kcli's rollback directory
    (its real path; kcli writes there and nothing else does). Restoring one is the exact undo of
    a reset, so moving offsets forward past unread records needs no --allow-skip. A file
    elsewhere (a --rollback-file of another name included) keeps the rule."""
    real = os.path.realpath(path)
    return os.path.isfile(real) and os.path.dirname(real) == os.path.realpath(rollback_dir())


def rollback_path(cluster_id: str | None, groups: list[str], now_ms: int) -> str:
    """A new file in ``rollback_dir()``, named by cluster, group and time:
    ``<cluster>_<group>_<yyyymmddThhmmss.mmmZ>.csv``."""
    group = groups[0] if len(groups) == 1 else f"{groups[0]}+{len(groups) - 1}"
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime(now_ms / 1000)) + f".{now_ms % 1000:03d}Z"
    name = "_".join(re.sub(r"[^A-Za-z0-9._-]", "-", part) for part in (cluster_id or "cluster", group, stamp))
    return os.path.join(rollback_dir(), name + ".csv")


def write_rollback(path: str, plans: list[GroupPlan], with_group: bool) -> None:
    """Writes the rollback file before anything is committed; never overwrites a file."""
    try:
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        with open(path, "x", encoding="utf-8", newline="") as fh:
            fh.write(rollback_csv(plans, with_group))
    except FileExistsError:
        raise UsageError(f"The rollback file {path} exists; kcli never overwrites one") from None
    except OSError as exc:
        raise OperationError(f"Cannot write the rollback file {path}: {exc.strerror}; "
                             "nothing was committed") from None

"""The broker's one way to replace a state file: whole or not at all, and durable."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable, TextIO


def replace_durably(path: Path, write: Callable[[TextIO], None]) -> None:
    """``write`` fills a temporary file beside ``path``, which is synced and renamed over
    ``path``, then the folder synced: after a crash, ``path`` is the old file or the new one."""
    tmp = path.with_suffix(".tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        write(f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    dir_fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)

"""``kcli __complete-names topics|groups|profiles``: the names the shell completion scripts offer
(``completions/``). Hidden; bounded by 2 s; prints nothing and exits 0 on any failure, so a TAB
never shows an error or hangs the shell."""

from __future__ import annotations

import contextlib
import os
import sys
import threading

import typer

from kcli.cli.context import state
from kcli.cli.tree import COMPLETE_COMMAND, build

KINDS = ("topics", "groups", "profiles")
TIMEOUT_MS = 2000


def complete_names(kind: str = typer.Argument(..., help="topics, groups or profiles.")):
    """List topic, group or profile names, one a line (for shell completion)."""
    if kind == "profiles":
        from kcli.profiles import profile_names

        names = profile_names()
    elif kind in ("topics", "groups"):
        st = state()
        st.settings.timeout_ms = min(st.settings.timeout_ms, TIMEOUT_MS)
        admin = st.admin()
        names = admin.topic_names() if kind == "topics" else [g.group_id for g in admin.list_groups()]
    else:
        names = []
    sys.stdout.write("".join(f"{n}\n" for n in names))


def run(args: list[str]) -> int:
    """Runs the hidden command with stderr silenced, every error swallowed and a hard deadline."""
    watchdog = threading.Timer(TIMEOUT_MS / 1000 + 0.5, os._exit, (0,))
    watchdog.daemon = True
    watchdog.start()
    try:
        with open(os.devnull, "w") as devnull, contextlib.redirect_stderr(devnull):
            build([COMPLETE_COMMAND])(args=args, prog_name="kcli", standalone_mode=False)
    except BaseException:  # noqa: BLE001 - completion is silent on failure by contract
        pass
    finally:
        watchdog.cancel()
    sys.stdout.flush()
    return 0

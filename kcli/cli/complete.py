"""Shell completion. ``kcli completion SHELL`` prints the script shipped in ``completions/``;
``kcli __complete-names topics|groups|profiles`` gives the names the scripts offer: hidden,
bounded by 2 s, it prints nothing and exits 0 on any failure, so a TAB never shows an error or
hangs the shell."""

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
SCRIPTS = {"bash": "kcli.bash", "zsh": "_kcli", "fish": "kcli.fish", "powershell": "kcli.ps1"}


def completion(shell: str = typer.Argument(..., metavar="SHELL", help="bash, zsh, fish or powershell.")):
    """Print the completion script for SHELL, for kcli and the kcli-kafka-* console scripts
    (topic, group and profile names come from the cluster on the line: -b, --bootstrap-server,
    --profile).

    Enable it: bash, in ~/.bashrc: source <(kcli completion bash); zsh: kcli completion zsh >
    ~/.zfunc/_kcli, with fpath+=~/.zfunc before compinit in ~/.zshrc; fish: kcli completion fish >
    ~/.config/fish/conf.d/kcli.fish; PowerShell, in $PROFILE: kcli completion powershell |
    Out-String | Invoke-Expression."""
    from kcli.errors import OperationError, UsageError
    from kcli.inputs import shown
    from kcli.shipped import shipped

    if shell not in SCRIPTS:
        raise UsageError(f"Unknown shell '{shown(shell)}': use one of {', '.join(SCRIPTS)}")
    path = shipped("completions", SCRIPTS[shell])
    if path is None:
        raise OperationError(f"This kcli was installed without its completion scripts "
                             f"(completions/{SCRIPTS[shell]})")
    sys.stdout.write(path.read_text(encoding="utf-8"))


def complete_names(kind: str = typer.Argument(..., help="topics, groups or profiles.")):
    """List topic, group or profile names, one a line (for shell completion)."""
    if kind == "profiles":
        from kcli.profiles import profile_names

        names = profile_names()
    elif kind in ("topics", "groups"):
        st = state()
        st.settings.timeout_ms = min(st.settings.timeout_ms, TIMEOUT_MS)
        from kcli.ops import groups, topics

        names = topics.topic_names(st.admin()) if kind == "topics" else groups.listed_ids(st.admin())
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

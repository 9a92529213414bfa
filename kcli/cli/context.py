"""One invocation's state: its streams, what the root callback builds from the global options
(client settings, output format), the secret values no message may show, and the adapter,
created on first use. ``run`` makes one per command line; nothing lives in module globals."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TextIO

from typer._click.globals import get_current_context  # typer vendors click; pinned

from kcli.admin.settings import ClientSettings
from kcli.render.output import Output

if TYPE_CHECKING:
    from kcli.admin import Admin
    from kcli.admin.client import KafkaAdmin


@dataclass
class State:
    stdout: TextIO = field(default_factory=lambda: sys.stdout)
    stderr: TextIO = field(default_factory=lambda: sys.stderr)
    settings: ClientSettings = field(default_factory=ClientSettings)
    output: Output = None  # type: ignore[assignment]  # made by __post_init__ when not given
    verbose: bool = False
    secrets: list[str] = field(default_factory=list)
    _admin: KafkaAdmin | None = None

    def __post_init__(self):
        if self.output is None:
            self.output = Output("table", self.stdout, self.stderr)

    def admin(self) -> Admin:
        """The admin adapter, created on first use (so bad input fails before any connection)."""
        if self._admin is None:
            from kcli.admin.client import KafkaAdmin

            self._admin = KafkaAdmin(self.settings)
            self._admin.on_note = self.output.note      # its Warn lines (kcli.admin.fallback)
        return self._admin

    def close(self) -> None:
        if self._admin is not None:
            self._admin.close()


def state() -> State:
    ctx = get_current_context()
    root = ctx.find_root()
    if root.obj is None:
        root.obj = State()
    return root.obj


def out() -> Output:
    return state().output

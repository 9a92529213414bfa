"""The per-invocation state the root callback builds from the global options."""

from __future__ import annotations

from dataclasses import dataclass, field

from typer._click.globals import get_current_context  # typer vendors click; pinned

from kcli.admin.settings import ClientSettings
from kcli.render.output import Output


@dataclass
class State:
    settings: ClientSettings = field(default_factory=ClientSettings)
    output: Output = field(default_factory=Output)
    verbose: bool = False
    _admin: object = None

    def admin(self):
        """The admin adapter, created on first use (so bad input fails before any connection)."""
        if self._admin is None:
            from kcli.admin.client import KafkaAdmin

            self._admin = KafkaAdmin(self.settings)
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

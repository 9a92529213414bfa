"""Named one-shot timers on the running asyncio loop (session and rebalance timeouts)."""

from __future__ import annotations

import asyncio
from typing import Callable, Hashable


class Timers:
    def __init__(self):
        self._handles: dict[Hashable, asyncio.TimerHandle] = {}

    def schedule(self, key: Hashable, delay_ms: int, fn: Callable[[], None]) -> None:
        """(Re)arm ``key``: ``fn`` runs after ``delay_ms`` unless cancelled or re-armed first."""
        self.cancel(key)

        def fire():
            self._handles.pop(key, None)
            fn()

        self._handles[key] = asyncio.get_running_loop().call_later(max(delay_ms, 0) / 1000, fire)

    def cancel(self, key: Hashable) -> None:
        handle = self._handles.pop(key, None)
        if handle is not None:
            handle.cancel()

    def cancel_all(self) -> None:
        for handle in self._handles.values():
            handle.cancel()
        self._handles.clear()

    def armed(self, key: Hashable) -> bool:
        return key in self._handles

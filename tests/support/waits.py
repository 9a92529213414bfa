"""Time in tests: a broker clock a test sets by hand, and the one bounded wait."""

from __future__ import annotations

import time
from typing import Callable


class Clock:
    """An injectable broker clock (epoch ms): real time when made, then moved by the test
    (``clock.now_ms = ...``, ``clock.now_ms += ...``)."""

    def __init__(self, now_ms: int | None = None):
        # Real time by default: clients stamp records with it, and Kafka 4's broker refuses
        # records over an hour ahead of its clock (message.timestamp.after.max.ms).
        self.now_ms = int(time.time() * 1000) if now_ms is None else now_ms

    def __call__(self) -> int:
        return self.now_ms


def wait_until(predicate: Callable[[], object], timeout: float = 20, interval: float = 0.05,
               what: str = ""):
    """Poll ``predicate`` until it returns something truthy and return that; fail after
    ``timeout`` seconds. Bounded in count and time."""
    deadline = time.monotonic() + timeout
    for _ in range(int(timeout / max(interval, 0.001)) + 2):
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            break
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout}s waiting for {what or predicate}")

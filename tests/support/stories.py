"""Cluster states several test modules look at: made with real clients (tests/support/clients.py)
on any broker."""

from __future__ import annotations

import time

from tests.support.clients import consume_and_commit, expand, produce, tagged

HOUR = 3_600_000
DAY = 24 * HOUR
NOW = int(time.time() * 1000)


def expansion_story(ec) -> None:
    """``billing`` read ``orders`` (2 partitions, created two days ago: 8 records each, stamped
    3 h ago), committed 8 and 8, and stopped; 2 more records landed on partition 0 (2 h and 1 h
    ago); the topic grew to 4 partitions and 4 records landed on each new one."""
    b = ec.bootstrap_servers
    ec.create_topic("orders", 2, creation_time_ms=NOW - 2 * DAY)
    for p in (0, 1):
        produce(b, "orders", tagged(f"old{p}", p, 8, NOW - 3 * HOUR))
    consume_and_commit(b, "billing", ["orders"], 16, protocol="consumer")
    produce(b, "orders", tagged("late", 0, 1, NOW - 2 * HOUR))
    produce(b, "orders", tagged("later", 0, 1, NOW - HOUR))
    expand(b, "orders", 2, 4, 4)

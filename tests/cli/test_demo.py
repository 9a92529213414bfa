"""`kcli demo` as a user runs it: every headline feature shows real values; nothing is left behind."""

from __future__ import annotations

import re
import socket

from tests.support.run import run_kcli_process

ISO = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"


def _section(text: str, command: str) -> str:
    start = text.index(f"$ kcli {command}")
    nxt = text.find("\n$ kcli", start + 1)
    return text[start: nxt if nxt > 0 else len(text)]


def test_demo_shows_every_kip_feature_and_leaves_nothing_running():
    r = run_kcli_process(None, "demo", timeout=120)
    assert r.code == 0, r.err
    text = r.out
    ports = [int(p) for p in re.findall(r"127\.0\.0\.1:(\d+)", text.splitlines()[0])]
    assert len(ports) == 3

    describe = _section(text, "describe topics orders")
    times = re.findall(rf"orders\s+(\d)\s+.*?({ISO})", describe)
    assert len(times) == 6
    old, new = {t for p, t in times if int(p) < 3}, {t for p, t in times if int(p) >= 3}
    assert len(old) == 1 and len(new) == 1 and old != new and min(new) > min(old)

    state = _section(text, "describe groups billing --state --verbose")
    assert "GROUP-CREATION-TIME" in state and re.search(rf"billing .*Empty.*{ISO}", state)

    latest = _section(text, "reset-offsets --group billing --topic orders --to-latest --dry-run")
    start = _section(text, "reset-offsets --group billing --topic orders --to-start-time --dry-run")
    for p in (3, 4, 5):      # --to-latest skips the 10 records of each new partition; --to-start-time keeps them
        assert re.search(rf"orders\s+{p}\s+-\s+10\s", latest)
        assert re.search(rf"orders\s+{p}\s+-\s+0\s", start)
    age = _section(text, "reset-offsets --group billing --topic orders --to-latest --max-age 1h --dry-run")
    assert len(re.findall(r"earliest \(hot", age)) == 3 and len(re.findall(r"latest \(cold", age)) == 3

    maxts = _section(text, "list-offsets --topic orders --max-timestamp")
    assert len(re.findall(rf"orders\s+\d\s+\d+\s+{ISO}", maxts)) == 6
    # The story's clock: no partition holds a record dated before the partition was created.
    created = {int(p): t for p, t in times}
    newest = {int(p): t for p, t in re.findall(rf"orders\s+(\d)\s+\d+\s+({ISO})", maxts)}
    assert all(newest[p] >= created[p] for p in range(6)), (created, newest)
    assert "REJECTED: INVALID_TIMESTAMP" in text and "invalid timestamp" in text

    for port in ports:       # the broker is gone: every port refuses connections
        with socket.socket() as s:
            s.settimeout(1)
            assert s.connect_ex(("127.0.0.1", port)) != 0

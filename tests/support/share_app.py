"""Share-group members for tests (``tests/apache/java/ShareMember.java``: an unmodified
KafkaShareConsumer 4.4 in explicit acknowledgement mode), compiled with javac against the
provisioned Apache Kafka jars once per session, each run in its own JVM against a loopback
cluster and stopped through its stdin (it leaves the group), by its PID if it does not end."""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import tempfile
from pathlib import Path

from tests.support.apache_kafka import KAFKA_VERSION, _die_with_parent, _tools_log4j, kafka_libs

SOURCE = Path(__file__).parents[1] / "apache" / "java" / "ShareMember.java"
_CLASSES: dict[str, Path] = {}
LOCK_MS = 1000      # the shortest lock a group may set here (group.share.min.record.lock.duration.ms)
# Share-group timings for an embedded broker in tests: 1 s heartbeats and locks
SHARE_CONFIGS = {"group.share.heartbeat.interval.ms": "1000",
                 "group.share.min.record.lock.duration.ms": str(LOCK_MS)}


def compiled() -> Path:
    libs = kafka_libs(KAFKA_VERSION)
    if str(libs) not in _CLASSES:
        out = Path(tempfile.mkdtemp(prefix="kcli-share-member-"))
        subprocess.run(["javac", "-nowarn", "-cp", f"{libs}/*", "-d", str(out), str(SOURCE)],
                       check=True, capture_output=True, text=True, timeout=120)
        _CLASSES[str(libs)] = out
    return _CLASSES[str(libs)]


class ShareMember:
    """One member of ``group`` on ``topic``: it accepts the records below offset ``below`` on
    every partition (``expected`` of them; it releases the others) and stays in the group, polling
    no more, until ``stop()``."""

    def __init__(self, bootstrap: str, topic: str, group: str, below: int, expected: int, timeout: float = 60):
        self.proc = subprocess.Popen(
            ["java", "-Xmx128m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
             f"-Dlog4j2.configurationFile={_tools_log4j(KAFKA_VERSION)}", "-cp",
             f"{compiled()}{os.pathsep}{kafka_libs(KAFKA_VERSION)}/*",
             "ShareMember", bootstrap, topic, group, str(below), str(expected)],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.PIPE, text=True,
            preexec_fn=_die_with_parent)
        line = self._line(timeout)
        if "accepted" not in line:
            self.stop()
            raise AssertionError(f"the share member of {group} did not accept {expected} records: {line!r}")

    def _line(self, timeout: float) -> dict:
        with selectors.DefaultSelector() as sel:
            sel.register(self.proc.stdout, selectors.EVENT_READ)
            if not sel.select(timeout):
                return {}
        line = self.proc.stdout.readline()
        return json.loads(line) if line.strip() else {}

    def stop(self) -> None:
        """Closes the member (it leaves the group) and waits for its JVM."""
        if self.proc.poll() is None:
            self.proc.stdin.close()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)


def stopped_member(bootstrap: str, topic: str, group: str, below: int, expected: int) -> None:
    """A share group left Empty with the records below ``below`` accepted (``expected`` of them)."""
    ShareMember(bootstrap, topic, group, below, expected).stop()

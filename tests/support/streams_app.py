"""A Kafka Streams application for tests (``java/StreamsApp.java``): compiled with javac against
the provisioned Apache Kafka jars into a temporary directory (once per test session), run in its
own JVM with group.protocol=streams against a loopback cluster, and stopped by its PID."""

from __future__ import annotations

import os
import signal
import subprocess
import tempfile
from pathlib import Path

from tests.support.apache_kafka import _die_with_parent, _tools_log4j, compiled as compile_java, kafka_libs

SOURCE = Path(__file__).parent / "java" / "StreamsApp.java"
# streams groups' reference: its broker, tools and Kafka Streams, whatever KCLI_KAFKA_VERSION says
STREAMS_KAFKA = "4.4.0"


def compiled() -> Path:
    """The directory of StreamsApp.class, compiled against the provisioned jars."""
    return compile_java(SOURCE, STREAMS_KAFKA)


class StreamsApp:
    """One running instance; ``stop()`` sends SIGTERM to its PID (the app closes, leaving the
    group) and waits, then SIGKILL if it has not ended."""

    def __init__(self, bootstrap: str, app_id: str, source: str, sink: str, topology: str = "copy",
                 guarantee: str | None = None, state_dir: str | None = None):
        """``topology``: "copy" (stateless, upper-cased) or "count" (stateful: counts the values,
        with a repartition and a changelog topic). ``guarantee``: processing.guarantee (None:
        Kafka Streams' default, at_least_once). ``state_dir``: an earlier instance's, to restart
        it (the same process id, so the same transactional ids under exactly_once_v2)."""
        self.state_dir = state_dir or tempfile.mkdtemp(prefix="kcli-streams-state-")
        self.proc = subprocess.Popen(
            ["java", "-Xmx192m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
             f"-Dlog4j2.configurationFile={_tools_log4j(STREAMS_KAFKA)}", "-cp",
             f"{compiled()}{os.pathsep}{kafka_libs(STREAMS_KAFKA)}/*",
             "StreamsApp", bootstrap, app_id, source, sink, self.state_dir, topology,
             *([guarantee] if guarantee else [])],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, text=True,
            preexec_fn=_die_with_parent)

    def wait_running(self) -> None:
        """Until the app prints RUNNING. The tools' logging prints errors on stdout too (a
        restart after kill -9 under exactly_once_v2 logs its corrupted tasks, which it restores):
        those lines are passed over, at most 1000 of them."""
        printed = []
        for _ in range(1000):
            line = self.proc.stdout.readline()      # bounded by the JVM: it prints or exits
            if line.strip() == "RUNNING":
                return
            if not line:
                break
            printed.append(line)
        raise AssertionError(f"the streams app did not start (exit {self.proc.poll()}): "
                             f"{''.join(printed)[-2000:]}")

    def kill(self) -> None:
        """kill -9: no close, no leaving the group, an open transaction left behind."""
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                os.kill(self.proc.pid, signal.SIGKILL)
                self.proc.wait(10)


def group_lags(bootstrap: str, group: str) -> dict[tuple[str, int], int] | None:
    """A group's lag per partition (``kcli describe groups``), None while it cannot be described."""
    import json

    from tests.support.run import run_kcli

    r = run_kcli(bootstrap, "-o", "json", "describe", "groups", group)
    if r.code:
        return None
    (g,) = json.loads(r.out)["groups"]
    return {(p["topic"], p["partition"]): p["lag"] for p in g["partitions"]}


def group_members(bootstrap: str, group: str) -> int | None:
    import json

    from tests.support.run import run_kcli

    r = run_kcli(bootstrap, "-o", "json", "describe", "groups", group, "--state")
    return json.loads(r.out)["groups"][0]["members"] if r.code == 0 else None


def run_until_caught_up(bootstrap: str, app_id: str, source: str, sink: str, partitions: int,
                        stop: bool = True) -> StreamsApp:
    """A StreamsApp that has processed ``source`` to its end (lag 0 on each partition); with
    ``stop``, stopped again and its group left without members (state Empty)."""
    from tests.support.waits import wait_until

    app = StreamsApp(bootstrap, app_id, source, sink)
    try:
        app.wait_running()
        wait_until(lambda: group_lags(bootstrap, app_id) == {(source, p): 0 for p in range(partitions)}, timeout=60)
    except BaseException:
        app.stop()
        raise
    if stop:
        app.stop()
        wait_until(lambda: group_members(bootstrap, app_id) == 0, timeout=60)
    return app

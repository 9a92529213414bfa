"""`kcli audit timestamps` through the entry point, on Spark local, against the embedded broker."""

from __future__ import annotations

import json
import socket
import sys
import time

import pytest
from confluent_kafka import Producer

from kcli.broker import EmbeddedCluster
from tests.support.run import run_kcli, run_kcli_process

pytestmark = pytest.mark.spark
BASE = 1_736_937_000_000


def test_audit_reports_bounds_order_and_reset_target():
    with EmbeddedCluster(nodes=1, clock=lambda: BASE + 60_000) as cluster:
        b = cluster.bootstrap_servers
        # No bound on the broker (Kafka 4's default refuses records over 1 h ahead): the audit
        # itself applies the bounds given below.
        cluster.create_topic("audited", partitions=1,
                             configs={"message.timestamp.after.max.ms": str(2**63 - 1)})
        p = Producer({"bootstrap.servers": b, "linger.ms": 0})
        # offsets:   0      1       2      3 (2 h in the future)   4 (a day in the past)
        for ts in (BASE, BASE + 20_000, BASE + 10_000, BASE + 7_260_000, BASE - 86_400_000):
            p.produce("audited", value=b"x", timestamp=ts)
            p.flush(10)
        r = run_kcli_process(b, "audit", "timestamps", "-t", "audited", "--after-max-ms", "3600000",
                             "--before-max-ms", "3600000", "--reference", str(BASE + 60_000),
                             "--target", str(BASE + 15_000), "--master", "local[1]", "-o", "json",
                             timeout=180)
        python = run_kcli_process(b, "audit", "timestamps", "-t", "audited", "--after-max-ms",
                                  "3600000", "--before-max-ms", "3600000", "--reference",
                                  str(BASE + 60_000), "--target", str(BASE + 15_000), "--master",
                                  "local[1]", "-o", "json", "--source", "python", timeout=180)
    assert r.code == 0, r.err
    assert r.err == ""                        # Spark's console output went to its log file
    doc = json.loads(r.out)
    assert doc["schema"] == "kcli.audit-timestamps/v3"
    # auto took Spark's connector (provisioned by scripts/test.sh); kcli's source agrees
    assert doc["source"] == "jvm", "no Spark Kafka connector: run scripts/provision-spark-kafka.sh"
    assert python.code == 0, python.err
    assert {**json.loads(python.out), "source": "jvm"} == doc
    part = doc["partitions"][0]
    assert part["records"] == 5
    assert part["tooNew"] == 1 and part["tooOld"] == 1
    assert part["outOfOrder"] == 2          # offsets 2 and 4 are below the running max
    # removing offsets 1 (above offset 2) and 4 (below offset 3) leaves the rest in order; offset
    # 3 is too new but in order
    assert part["culprits"] == 2 and doc["total"]["culprits"] == 2
    assert [(c["offset"], c["aheadMs"], c["tooNew"]) for c in part["firstCulprits"]] == [
        (1, 10_000, False), (4, -86_400_000 - 7_260_000, False)]
    assert part["targetOffset"] == 1         # first offset with a timestamp >= target
    assert part["replayed"] == 2              # offsets 2 and 4 are older than the target
    assert part["skipped"] == 0
    assert part["maxTimestampCheck"] == "agree"


@pytest.fixture()
def state_home(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    return tmp_path


def test_stderr_carries_only_kcli_lines_and_verbose_names_the_spark_log(state_home):
    with EmbeddedCluster(nodes=1) as cluster:
        b = cluster.bootstrap_servers
        cluster.create_topic("quiet", partitions=1)
        r = run_kcli_process(b, "audit", "timestamps", "-t", "quiet", "--master", "local[1]",
                             "--verbose", timeout=180)
    assert r.code == 0, r.err
    line, source = r.err.splitlines()
    assert source == "Source: jvm (Spark's Kafka connector)"   # auto, the connector provisioned
    assert line.startswith("Spark's console output: " + str(state_home / "kcli" / "spark" / "audit-"))
    log = open(line.split(": ", 1)[1], encoding="utf-8").read()
    assert "log4j" in log                     # what Spark used to print on kcli's stderr


def _no_jvm_failure(state_home, *args, bootstrap="127.0.0.1:1"):
    t0 = time.monotonic()
    r = run_kcli_process(bootstrap, "audit", "timestamps", *args, "--timeout", "20s", timeout=60)
    elapsed = time.monotonic() - t0
    assert r.code == 1 and r.out == "" and r.err.count("\n") == 1, r.err
    assert not (state_home / "kcli" / "spark").exists()       # no JVM was started
    return r.err, elapsed


def test_missing_topic_and_unreachable_master_fail_before_a_jvm_starts(state_home):
    with EmbeddedCluster(nodes=1) as cluster:
        b = cluster.bootstrap_servers
        cluster.create_topic("present", partitions=1)
        err, elapsed = _no_jvm_failure(state_home, "-t", "present", "-t", "absent", bootstrap=b)
        assert err == "Error: Topic 'absent' does not exist\n" and elapsed < 5
        with socket.socket() as s:                # bound, not listening: refused
            s.bind(("127.0.0.1", 0))
            master = f"127.0.0.1:{s.getsockname()[1]}"
            err, elapsed = _no_jvm_failure(state_home, "-t", "present", "--master", f"spark://{master}",
                                           bootstrap=b)
        assert err == f"Error: Spark master unreachable: {master}: Connection refused\n" and elapsed < 5


def test_without_pyspark_one_line_says_how_to_install_it(state_home, monkeypatch):
    monkeypatch.setitem(sys.modules, "pyspark", None)      # as in a venv without the [spark] extra
    r = run_kcli("127.0.0.1:1", "audit", "timestamps", "-t", "any")
    assert r.code == 1 and r.err.count("\n") == 1
    assert "pyspark is not installed" in r.err and "pip install 'kcli-kafka[spark]'" in r.err
    assert "pip install -e '.[spark]'" in r.err


def test_a_silent_master_is_one_line_within_the_timeout(state_home):
    """A spark:// master that accepts connections and never answers (Spark would retry for a
    minute and print stack traces): one line within --timeout + 5 s."""
    with EmbeddedCluster(nodes=1) as cluster, socket.socket() as silent:
        cluster.create_topic("present", partitions=1)
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        master = f"spark://127.0.0.1:{silent.getsockname()[1]}"
        t0 = time.monotonic()
        r = run_kcli_process(cluster.bootstrap_servers, "audit", "timestamps", "-t", "present",
                             "--master", master, "--timeout", "5s", timeout=120)
        elapsed = time.monotonic() - t0
    assert r.code == 1 and r.out == "", r
    assert r.err == f"Error: Spark master unreachable: {master} did not take the application within --timeout\n"
    assert elapsed < 5 + 5, elapsed


def test_a_stalled_read_is_one_line_within_the_timeout(state_home):
    """A broker that stops answering Fetch mid-audit (the data source would wait 120 s for
    records by default): one line, within --timeout + 5 s of what the same audit takes when the
    broker answers."""
    with EmbeddedCluster(nodes=1) as cluster:
        b = cluster.bootstrap_servers
        cluster.create_topic("stalled", partitions=2)
        p = Producer({"bootstrap.servers": b, "linger.ms": 0})
        for i in range(20):
            p.produce("stalled", value=b"x", partition=i % 2)
        p.flush(10)
        args = ("audit", "timestamps", "-t", "stalled", "--master", "local[1]", "--timeout", "5s",
                "--source", "python")
        t0 = time.monotonic()
        healthy = run_kcli_process(b, *args, timeout=180)
        t1 = time.monotonic()
        cluster.fault("Fetch", "hang")
        r = run_kcli_process(b, *args, timeout=180)
        t2 = time.monotonic()
    assert healthy.code == 0, healthy.err
    assert r.code == 1 and r.out == "", r
    assert r.err.startswith("Error: Spark job failed: TimeoutError: no progress reading stalled-"), r.err
    assert r.err.endswith("for 5s\n") and r.err.count("\n") == 1, r.err
    assert (t2 - t1) - (t1 - t0) < 5 + 5, (t1 - t0, t2 - t1)


def test_group_is_also_dash_g_as_on_every_command_that_takes_a_group():
    """``-g`` is ``--group`` here too (the refusal of --target with --group shows it is read
    as the group, before Spark or the cluster is touched)."""
    for flag in ("-g", "--group"):
        r = run_kcli("127.0.0.1:1", "audit", "timestamps", "-t", "any", flag, "billing", "--target", "now")
        assert (r.code, r.out, r.err) == (2, "", "Error: --target can't be used with --group\n"), (flag, r)


def test_table_names_the_culprits_in_one_note():
    import io

    from kcli.pipeline.result import AuditResult, AuditTotal, Culprit, PartitionAudit
    from kcli.render.audit import render_audit
    from kcli.render.output import Output

    culprits = [Culprit("orders", 0, o, BASE + 1_800_000, 1_790_000, False) for o in (10, 11)]
    parts = [PartitionAudit("orders", 0, 0, 113, 0, 113, records=113, culprits=2,
                            first_culprits=culprits, out_of_order=101),
             PartitionAudit("orders", 1, 0, 3, 0, 3, records=3, culprits=1, too_new=1, out_of_order=1,
                            first_culprits=[Culprit("orders", 1, 2, BASE - 3_600_000, -3_610_000, False)])]
    out, err = io.StringIO(), io.StringIO()
    render_audit(Output("table", out, err), AuditResult(["orders"], BASE, None, parts,
                                                        AuditTotal.of(parts, False)))
    header, *rows = out.getvalue().splitlines()
    assert "CULPRITS" in header and "OUT-OF-ORDER" in header
    assert err.getvalue() == (
        "Culprits, the fewest records whose removal leaves each partition in timestamp order: "
        "orders-0@10 2025-01-15T11:00:00.000Z (29m50s ahead), orders-0@11 2025-01-15T11:00:00.000Z "
        "(29m50s ahead), orders-1@2 2025-01-15T09:30:00.000Z (1h behind)\n")


def _session_processes(sid: int) -> list[tuple[int, str, str]]:
    """(pid, state, command) of the processes in session ``sid``, zombies included."""
    import os

    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                comm, rest = f.read().split(" (", 1)[1].rsplit(")", 1)
            fields = rest.split()
            if int(fields[3]) == sid:
                found.append((int(entry), fields[0], comm))
        except (OSError, IndexError, ValueError):
            continue
    return found


def _ctrl_c_default() -> None:
    """In the child before exec: SIGINT's default disposition, as an interactive shell gives its
    foreground job. A suite started in the background of a non-interactive shell (`cmd &`)
    inherits SIGINT ignored, and an ignored signal stays ignored across exec: the audit would
    never see the Ctrl-C (a fresh-clone run started that way failed so, 4 times in 4)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_is_one_line_exit_130_and_no_jvm_left(state_home):
    """SIGINT to the audit's process group (a terminal's Ctrl-C) once the progress bar counts
    records (its total known: the job runs): one line on the terminal, exit 130, and nothing of its
    session left (its JVM and
    Spark's Python workers stopped), not the 40-line py4j traceback of before."""
    import os
    import pty
    import re
    import select
    import signal
    import subprocess

    with EmbeddedCluster(nodes=1) as cluster:
        b = cluster.bootstrap_servers
        cluster.create_topic("long", partitions=4)
        p = Producer({"bootstrap.servers": b, "linger.ms": 20, "batch.num.messages": 10_000})
        for _ in range(100_000):
            while True:
                try:
                    p.produce("long", value=b"x" * 100)
                    break
                except BufferError:
                    p.poll(0.05)
        assert p.flush(60) == 0
        del p
        # no Fetch is answered: the audit is still reading when the Ctrl-C comes, whatever the
        # machine's speed (it read these records before the signal landed once, and exited 0)
        cluster.fault("Fetch", "hang")
        master, slave = pty.openpty()
        proc = subprocess.Popen([sys.executable, "-m", "kcli", "-b", b, "audit", "timestamps",
                                 "-t", "long", "--master", "local[1]"], stdin=slave, stdout=slave,
                                stderr=slave, start_new_session=True, preexec_fn=_ctrl_c_default)
        os.close(slave)
        screen, sent, deadline = b"", False, time.monotonic() + 240
        try:
            while time.monotonic() < deadline:
                if select.select([master], [], [], 0.2)[0]:
                    try:
                        chunk = os.read(master, 65536)
                    except OSError:          # the terminal's last writer is gone
                        break
                    if not chunk:
                        break
                    screen += chunk
                if not sent and re.search(rb"Records read[^%\n]*? [0-9]+%", screen):
                    os.killpg(proc.pid, signal.SIGINT)              # one Ctrl-C
                    sent = True
            code = proc.wait(60)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
            os.close(master)
        live = [(pid, comm) for pid, state, comm in _session_processes(proc.pid) if state != "Z"]
    assert sent, f"the progress never counted records: {screen[-500:]!r}"
    assert code == 130, screen[-3000:]
    assert not [c for _, c in live if c == "java"], live       # the JVM is stopped before exit
    text = re.sub(rb"\x1b\[[0-9;?]*[A-Za-z]", b"", screen).decode(errors="replace")
    lines = [line.strip() for line in re.split(r"[\r\n]", text)
             if line.strip() and not line.strip().startswith("Records read")]
    assert lines == ["Error: interrupted (Ctrl-C): the audit's Spark jobs were cancelled and its "
                     "JVM stopped"], text[-3000:]
    for _ in range(50):                        # Spark's Python workers end with their JVM
        live = [(pid, comm) for pid, state, comm in _session_processes(proc.pid) if state != "Z"]
        if not live:
            break
        time.sleep(0.2)
    assert not live


def test_ctrl_c_while_the_first_audit_writes_the_class_archive_is_quiet(tmp_path):
    """The first audit with an empty cache waits at exit for its JVM to write the archive of
    Spark's classes (kcli.pipeline.spark.driver_java_options): a Ctrl-C then ends the wait with
    no traceback; the audit's result was printed and stands (exit 0). (Whether an archive is kept
    depends on whether the JVM finished writing before the signal.)"""
    import os
    import signal
    import subprocess

    cache = tmp_path / "cache"
    env = {k: v for k, v in os.environ.items() if k not in ("PYSPARK_SUBMIT_ARGS", "SPARK_HOME")}
    env.update(KCLI_CACHE_DIR=str(cache), XDG_STATE_HOME=str(tmp_path / "state"))
    with EmbeddedCluster(nodes=1) as cluster:
        cluster.create_topic("t", partitions=1)
        p = Producer({"bootstrap.servers": cluster.bootstrap_servers})
        p.produce("t", value=b"x")
        assert p.flush(30) == 0
        proc = subprocess.Popen([sys.executable, "-m", "kcli", "-b", cluster.bootstrap_servers,
                                 "audit", "timestamps", "-t", "t", "--master", "local[1]", "-o",
                                 "json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                                preexec_fn=_ctrl_c_default)
        try:
            deadline = time.monotonic() + 180
            while not list(cache.glob("spark-cds/*.tmp")) and time.monotonic() < deadline:
                assert proc.poll() is None, proc.communicate()
                time.sleep(0.05)
            assert list(cache.glob("spark-cds/*.tmp")), "the JVM never began writing the archive"
            proc.send_signal(signal.SIGINT)          # kcli only: its JVM goes on writing
            out, err = proc.communicate(timeout=30)
        finally:
            if proc.poll() is None:
                proc.kill()
    assert (proc.returncode, err.decode()) == (0, "")
    assert json.loads(out)["total"]["records"] == 1

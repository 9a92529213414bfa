"""Starting Spark for kcli: the Java check, the session (its driver JVM's options) and
job progress from Spark's status tracker."""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
import shutil
import socket
import sys
import threading
import time
import uuid
from dataclasses import dataclass
from typing import Any, Callable, TypeVar

from kcli.errors import EXIT_INTERRUPTED, KcliError, OperationError
from kcli.pipeline.classarchive import ARCHIVE_FLAGS, archive_options
from kcli.xdg import cache_dir, state_dir

T = TypeVar("T")


class JavaNotFound(KcliError):
    """Spark needs a Java runtime and none was found."""


class Interrupted(KcliError):
    """Ctrl-C (SIGINT) ended the audit; Spark was stopped (``stop_after_interrupt``)."""

    exit_code = EXIT_INTERRUPTED


def check_java() -> str:
    """The java executable Spark will use, or JavaNotFound with a one-line reason."""
    home = os.environ.get("JAVA_HOME")
    if home:
        java = os.path.join(home, "bin", "java")
        if os.access(java, os.X_OK):
            return java
        raise JavaNotFound(f"Java not found: JAVA_HOME={home} has no bin/java; "
                           "kcli audit runs on Spark, which needs Java 17 or newer")
    found = shutil.which("java")
    if found is None:
        raise JavaNotFound("Java not found: kcli audit runs on Spark, which needs Java 17 or newer "
                           "(install it, or set JAVA_HOME)")
    return found


def check_pyspark() -> None:
    """pyspark importable, or one line saying how to install it (kcli's [spark] extra)."""
    import importlib.util

    if importlib.util.find_spec("pyspark") is None:
        raise OperationError(
            "The audit runs on Spark, and pyspark is not installed for this Python "
            f"({sys.executable}): install kcli with its spark extra, pip install 'kcli-kafka[spark]' "
            "(from a clone: pip install -e '.[spark]')")


def check_master(master: str, timeout_s: float) -> None:
    """A ``spark://host:port[,host:port]`` master that refuses connections or has no address is
    reported before a JVM starts (Spark itself retries for a minute), in one line; a local master
    or ``yarn``/``k8s://`` is left to Spark."""
    if not master.startswith("spark://"):
        return
    reasons = []
    for address in master[len("spark://"):].split(","):
        host, _, port = address.rpartition(":")
        try:
            with socket.create_connection((host, int(port)), timeout=max(0.1, min(timeout_s, 5.0))):
                return                                    # one master answers: Spark takes over
        except (OSError, ValueError) as exc:
            reasons.append(f"{address}: {getattr(exc, 'strerror', None) or exc}")
    raise OperationError(f"Spark master unreachable: {'; '.join(reasons)}")


CONNECTOR_CLASS = "org.apache.spark.sql.kafka010.KafkaSourceProvider"


def connector_jars() -> list[str]:
    """The jars of Spark's Kafka connector for the installed pyspark, as
    scripts/provision-spark-kafka.sh caches them (``kcli.xdg.cache_dir``); [] when not provisioned."""
    import importlib.metadata

    try:
        version = importlib.metadata.version("pyspark")
    except importlib.metadata.PackageNotFoundError:
        return []
    home = cache_dir(f"spark-kafka-{version}")
    if not os.path.isfile(os.path.join(home, "complete")):
        return []
    jars = os.path.join(home, "jars")
    return sorted(os.path.join(jars, name) for name in os.listdir(jars) if name.endswith(".jar"))


def has_connector(spark) -> bool:
    """Spark's Kafka connector (the ``kafka`` format) is on the session's classpath."""
    try:
        spark._jvm.org.apache.spark.util.Utils.classForName(CONNECTOR_CLASS, True, False)
        return True
    except Exception:  # noqa: BLE001 - py4j's error for a ClassNotFoundException
        return False


def log_path(now_s: float | None = None) -> str:
    """A new file for Spark's own console output (the JVM's and its Python workers'):
    ``$XDG_STATE_HOME/kcli/spark/audit-<utc time>-<pid>.log`` (``~/.local/state``)."""
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(time.time() if now_s is None else now_s))
    return state_dir("spark", f"audit-{stamp}-{os.getpid()}.log")


@contextlib.contextmanager
def console_to(path: str):
    """While the block runs, this process's stdout and stderr (file descriptors 1 and 2) are
    ``path``: a JVM started in it (and the Python workers it starts) write their console output
    there for good; kcli's own streams are restored after."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    saved = [os.dup(1), os.dup(2)]
    log = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        os.dup2(log, 1)
        os.dup2(log, 2)
        yield
    finally:
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for fd in (*saved, log):
            os.close(fd)


def session(master: str = "local[*]", conf: dict[str, str] | None = None,
            app_name: str = "kcli audit", log: str | None = None, deadline: float | None = None,
            quick_jit: bool = False):
    """A SparkSession (created or reused); with ``log``, the JVM's console output goes to that
    file (``console_to``). A cluster master that has not taken the application by ``deadline``
    (time.monotonic()), or that Spark gives up on, is one line, ``Spark master unreachable: ...``
    (Spark itself retries for a minute). The kcli-kafka data source is not registered
    (``kcli.pipeline.source``).

    Local masters bind the driver (and the JVM's SPARK_LOCAL_IP) to 127.0.0.1 and run without
    the web UI. A driver JVM started here starts from an archive of Spark's classes, and with
    ``quick_jit`` compiles quickly rather than well (``driver_java_options``)."""
    check_pyspark()
    check_java()
    from pyspark.sql import SparkSession

    # Spark runs its Python workers with PYSPARK_PYTHON (else the first `python3` on PATH), on the
    # driver too, where the data source plans the read: make that this interpreter, which has kcli,
    # confluent-kafka and pyarrow. Executors on a cluster then need them at the same path, unless
    # the user names another interpreter in PYSPARK_PYTHON.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    builder = SparkSession.builder.master(master).appName(app_name)
    # before the first session of the process starts Spark's JVM, which keeps its SPARK_HOME
    # for the later ones, local or not (the driver's own Python workers plan the reads on a
    # cluster too)
    workers_import_installed_pyspark()
    if master.startswith("local"):
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")  # the JVM's own address: loopback too
        builder = (builder.config("spark.driver.host", "127.0.0.1")
                   .config("spark.driver.bindAddress", "127.0.0.1")
                   .config("spark.ui.enabled", "false"))
    builder = builder.config("spark.ui.showConsoleProgress", "false")
    conf = dict(conf or {})
    options = driver_java_options(conf.get(DRIVER_JAVA_OPTIONS, ""), quick_jit)
    if options:
        conf[DRIVER_JAVA_OPTIONS] = options
    for key, value in conf.items():
        builder = builder.config(key, value)
    quiet_py4j()
    with console_to(log) if log else contextlib.nullcontext():
        if master.startswith("local") or deadline is None:
            spark = _started(builder.getOrCreate)
        else:
            spark = _within(builder.getOrCreate, deadline, master)
        spark.sparkContext.setLogLevel("ERROR")
    _STARTED.set()
    return spark


def workers_import_installed_pyspark() -> None:
    """Spark puts ``$SPARK_HOME/python/lib/pyspark.zip`` first on its Python workers' path, and a
    pip-installed pyspark ships that zip: a zip holds no compiled bytecode, so every Python daemon
    Spark starts (four in a first audit: data source lookup, creation, planning, the reads)
    compiled pyspark again, 0.75 s of CPU against 0.19 s from the installed package. Without a
    SPARK_HOME of the user's, and with the workers on this interpreter (which has pyspark), point
    SPARK_HOME at the installed pyspark's layout without its ``python/`` folder (symlinks, in
    kcli's cache): the workers import the installed, compiled pyspark and py4j."""
    if os.environ.get("SPARK_HOME") or os.environ.get("PYSPARK_PYTHON") != sys.executable:
        return
    import pyspark

    home = os.path.dirname(os.path.abspath(pyspark.__file__))
    if not os.path.exists(os.path.join(home, "python", "lib", "pyspark.zip")):
        return
    shadow = cache_dir("spark-home", f"{pyspark.__version__}-{uuid.uuid5(uuid.NAMESPACE_URL, home)}")
    if not os.path.isdir(shadow):
        staging = f"{shadow}.{os.getpid()}.tmp"
        try:
            os.makedirs(staging)
            for name in os.listdir(home):
                if name != "python":
                    os.symlink(os.path.join(home, name), os.path.join(staging, name))
            os.replace(staging, shadow)   # whole or not at all: another kcli may race
        except OSError:
            shutil.rmtree(staging, ignore_errors=True)
            if not os.path.isdir(shadow):
                return                    # a read-only cache: the zip, as before
    os.environ["SPARK_HOME"] = shadow


DRIVER_JAVA_OPTIONS = "spark.driver.extraJavaOptions"


def driver_java_options(given: str = "", quick_jit: bool = False) -> str:
    """The driver JVM's options (``spark.driver.extraJavaOptions``): ``given``, then

    - a class-data-sharing archive of the classes Spark loads (the JDK's dynamic AppCDS): the
      JVM maps them from the archive instead of loading and verifying them from Spark's jars
      again, which takes a local session's start from 4.1 s to 2.4 s and its first job from 2.3 s
      to 1.2 s on 2 cores (``kcli.pipeline.classarchive``: ``-XX:SharedArchiveFile`` when kcli's
      cache holds the archive for this Java and Spark, else ``-XX:ArchiveClassesAtExit`` to a file
      made the cache's at this process's exit; the first audit on a machine waits for its JVM to
      write the archive, ~10 s). The JVM checks an
      archive against its own build and classpath, and starts without it when they differ;
    - with ``quick_jit``, ``-XX:TieredStopAtLevel=1``: the JIT's quick compiler only, for a
      driver that runs no heavy JVM code (the reads in Python workers, or tasks on a cluster's
      executors): 0.7 s less to start a session and 0.3 s less for its first job; the optimizing
      compiler pays off only when the JVM itself reads the records (Spark's Kafka connector on a
      local master: 10M records took 57 s with the quick compiler only, 37 s with both).

    ``given`` unchanged when a JVM runs in this process already (its options are set) or when the
    user chose the driver's options in spark-defaults.conf (they would be replaced); no archive
    when ``given`` names one, or when the cache is not writable."""
    from pyspark import SparkContext

    if SparkContext._gateway is not None or _spark_defaults_set(DRIVER_JAVA_OPTIONS):
        return given
    added = ["-XX:TieredStopAtLevel=1"] if quick_jit else []
    if not any(flag in given for flag in ARCHIVE_FLAGS):
        added += archive_options(check_java(), _STARTED)
    return " ".join([given, *added]).strip()


def _spark_defaults_set(key: str) -> bool:
    """``key`` is set in the spark-defaults.conf Spark reads ($SPARK_CONF_DIR, else
    $SPARK_HOME/conf): an option kcli would otherwise replace."""
    folder = os.environ.get("SPARK_CONF_DIR") or os.path.join(os.environ.get("SPARK_HOME", ""), "conf")
    try:
        with open(os.path.join(folder, "spark-defaults.conf"), encoding="utf-8") as f:
            return any(line.split(None, 1)[:1] == [key] for line in f)
    except OSError:
        return False


_STARTED = threading.Event()    # a session started in this process (``session``)


def quiet_py4j() -> None:
    """py4j (and pyspark) log a JVM that went away, or a call cut by Ctrl-C, with a traceback:
    their records go nowhere; kcli reports the failure itself in one line."""
    for name in ("py4j", "pyspark"):
        logger = logging.getLogger(name)
        if not any(isinstance(h, logging.NullHandler) for h in logger.handlers):
            logger.addHandler(logging.NullHandler())
        logger.propagate = False
    # py4j also logs through the root logger itself (logging.exception("KeyboardInterrupt while
    # sending command.")), which would configure it to print on stderr: a handler that drops
    # records keeps it from configuring itself, when nothing else configured it
    root = logging.getLogger()
    if not root.handlers:
        root.addHandler(logging.NullHandler())


def stop_after_interrupt(wait_s: float = 15.0) -> None:
    """After Ctrl-C: cancel the Spark jobs, stop the session and end the JVM that pyspark started
    in this process (SIGTERM, then SIGKILL after ``wait_s``), waiting for it to be gone. Quiet:
    every step may meet a JVM already going. A later ``session()`` starts a new JVM."""
    try:
        from pyspark import SparkContext
        from pyspark.sql import SparkSession
    except ImportError:
        return                                  # no pyspark: no JVM either

    quiet_py4j()
    sc = SparkContext._active_spark_context
    gateway = SparkContext._gateway
    proc = getattr(gateway, "proc", None)

    if sc is not None:
        def stop() -> None:
            with contextlib.suppress(Exception):
                sc.cancelAllJobs()
            with contextlib.suppress(Exception):
                sc.stop()

        # the JVM may be busy or gone: the stop gets a few seconds, then the process is ended
        stopper = threading.Thread(target=stop, name="kcli-spark-stop", daemon=True)
        stopper.start()
        stopper.join(min(5.0, wait_s))
    if gateway is not None:
        with contextlib.suppress(Exception):
            gateway.shutdown()
    if proc is not None and proc.poll() is None:
        with contextlib.suppress(Exception):
            proc.stdin.close()                  # the JVM's gateway exits on its stdin's EOF
        proc.terminate()
        try:
            proc.wait(wait_s)
        except Exception:  # noqa: BLE001 - subprocess.TimeoutExpired, or interrupted again
            proc.kill()
            proc.wait(wait_s)
    SparkContext._active_spark_context = None
    SparkContext._gateway = None
    SparkContext._jvm = None
    SparkSession._instantiatedSession = None
    SparkSession._activeSession = None


def _within(start: Callable[[], T], deadline: float, master: str) -> T:
    """``start()`` (a SparkSession for a cluster master) in a thread, waited for until
    ``deadline``; its failure or its lateness is one line. A late JVM ends with kcli's process
    (it exits when its parent's pipe closes)."""
    done, outcome = _in_thread(start, max(0.0, deadline - time.monotonic()))
    if not done.is_set():
        raise OperationError(f"Spark master unreachable: {master} did not take the application "
                             "within --timeout")
    if "error" in outcome:
        error = outcome["error"]
        reason = next((line.strip() for line in str(error).splitlines() if line.strip()), type(error).__name__)
        raise OperationError(f"Spark master unreachable: {master}: {reason}")
    return outcome["value"]


def _started(start: Callable[[], T]) -> T:
    """``start()`` (a SparkSession) in a thread, its error re-raised here. Ctrl-C while the JVM
    starts waits (a minute at most) for it to be up, so that ``stop_after_interrupt`` finds it."""
    _, outcome = _in_thread(start, None)
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def _in_thread(start: Callable[[], T], timeout_s: float | None):
    """Run ``start()`` in a daemon thread, waited for ``timeout_s`` (None: until it ends); the
    thread and ``{"value": ...}`` or ``{"error": ...}``. The thread is not the main one, so a
    SparkContext it creates installs no SIGINT handler."""
    outcome: dict[str, Any] = {}
    done = threading.Event()

    def target() -> None:
        try:
            outcome["value"] = start()
        except BaseException as e:  # noqa: BLE001 - re-raised in the caller's thread
            outcome["error"] = e
        finally:
            done.set()

    worker = threading.Thread(target=target, name="kcli-spark-session", daemon=True)
    worker.start()
    try:
        # Event.wait, not Thread.join: a join interrupted by Ctrl-C marks the thread as stopped
        # (CPython 3.11, bpo-45274's fix), and a second join then returns at once
        done.wait(timeout_s)
    except KeyboardInterrupt:
        done.wait(60)
        raise
    return done, outcome


@dataclass(frozen=True)
class Progress:
    """Tasks of the Spark jobs of one kcli action so far, and the records its reads reported
    (``ReadProgress``; None without one)."""

    jobs: int
    stages: int
    tasks_total: int
    tasks_done: int
    tasks_active: int
    tasks_failed: int
    records_read: int | None = None
    records_total: int | None = None


class ReadProgress:
    """Records read so far by the kcli-kafka source's tasks: they report to ``address`` (its
    ``progressAddress`` option) in UDP datagrams, received here on the driver by a daemon thread.
    A task retried from its start reports lower counts, which are ignored (the highest count per
    range is kept). ``expect(n)`` adds the records a pass will read to ``total``; each pass has
    its own tag (``address_for``)."""

    def __init__(self, host: str = "127.0.0.1") -> None:
        family, kind, proto, _, bind = socket.getaddrinfo(host, 0, type=socket.SOCK_DGRAM)[0]
        self._sock = socket.socket(family, kind, proto)
        self._sock.bind(bind)
        self._sock.settimeout(0.2)
        port = self._sock.getsockname()[1]
        self._address = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
        self._done: dict[bytes, int] = {}
        self._passes = 0
        self.total = 0
        self._closed = False
        self._thread = threading.Thread(target=self._receive, name="kcli-read-progress", daemon=True)
        self._thread.start()

    def address_for(self, records: int) -> str:
        """The ``progressAddress`` of a new pass over ``records`` records."""
        self._passes += 1
        self.total += records
        return f"{self._address}/{self._passes}"

    @property
    def read(self) -> int:
        return sum(self._done.values())

    def _receive(self) -> None:
        while not self._closed:
            try:
                data = self._sock.recv(4096)
            except (TimeoutError, socket.timeout):
                continue
            except OSError:
                return
            key, _, count = data.rpartition(b"\0")
            try:
                n = int(count)
            except ValueError:
                continue
            if n > self._done.get(key, -1):
                self._done[key] = n

    def close(self) -> None:
        self._closed = True
        self._thread.join(1)
        self._sock.close()


ProgressHook = Callable[[Progress], None]


def run_with_progress(spark, action: Callable[[], T], hook: ProgressHook | None,
                      description: str = "kcli audit", interval_s: float = 0.25,
                      reads: ReadProgress | None = None) -> T:
    """Run ``action`` (which triggers Spark jobs) in a thread, feeding ``hook`` (if any) from
    Spark's status tracker (and ``reads``) every ``interval_s`` until it returns; then return its
    result or raise its error."""
    sc = spark.sparkContext
    group = f"kcli-{uuid.uuid4().hex}"
    outcome: dict[str, Any] = {}
    done, polled = threading.Event(), threading.Event()

    def target() -> None:
        sc.setJobGroup(group, description)
        try:
            outcome["value"] = action()
        except BaseException as e:  # noqa: BLE001 - re-raised in the caller's thread
            outcome["error"] = e
        finally:
            done.set()

    def poll() -> None:
        try:
            finished = False
            while not finished:
                finished = done.wait(interval_s)
                progress = _progress(sc.statusTracker(), group)
                if reads is not None:
                    progress = dataclasses.replace(progress, records_read=reads.read,
                                                   records_total=reads.total)
                if hook is not None:
                    hook(progress)
        except Exception:  # noqa: BLE001 - a progress bar never fails the audit
            pass
        finally:
            polled.set()

    # The action and the polling (py4j calls both) run in threads: Ctrl-C (KeyboardInterrupt)
    # reaches the main thread while it waits on an Event, never inside a py4j call (which py4j
    # logs with a traceback), and the caller stops Spark (stop_after_interrupt).
    threading.Thread(target=target, name="kcli-spark-action", daemon=True).start()
    if hook is not None:
        threading.Thread(target=poll, name="kcli-spark-progress", daemon=True).start()
    else:
        polled.set()
    while not (done.wait(interval_s) and polled.wait(interval_s)):
        pass
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def _progress(tracker, group: str) -> Progress:
    stages = []
    job_ids = tracker.getJobIdsForGroup(group)
    for job_id in job_ids:
        job = tracker.getJobInfo(job_id)
        for stage_id in job.stageIds if job else ():
            info = tracker.getStageInfo(stage_id)
            if info is not None:
                stages.append(info)
    return Progress(
        jobs=len(job_ids),
        stages=len(stages),
        tasks_total=sum(s.numTasks for s in stages),
        tasks_done=sum(s.numCompletedTasks for s in stages),
        tasks_active=sum(s.numActiveTasks for s in stages),
        tasks_failed=sum(s.numFailedTasks for s in stages),
    )

"""The driver JVM's class-data-sharing archive of the classes Spark loads (the JDK's dynamic
AppCDS), kept in kcli's cache: written by the first session on a machine when its process ends,
mapped by every later driver JVM (``kcli.pipeline.spark.driver_java_options``)."""

from __future__ import annotations

import atexit
import contextlib
import os
import threading

from kcli.xdg import cache_dir

# the JVM options that name an archive: one the user gives is left alone
ARCHIVE_FLAGS = ("-Xshare", "SharedArchiveFile", "ArchiveClassesAtExit", "AutoCreateSharedArchive")
_KEPT = 2       # archives of ~150 MB: a local and a cluster driver's (another SPARK_HOME) at most


def archive_options(java: str, started: threading.Event) -> list[str]:
    """The driver JVM's options for the archive of ``java`` and this Spark: ``-XX:SharedArchiveFile``
    when kcli's cache holds it, else ``-XX:ArchiveClassesAtExit`` to a file of this process, kept
    as the cache's at this process's exit when a session ``started`` and its JVM ended well
    (``_keep``); none when the cache is not writable."""
    archive = class_archive_path(java)
    if os.path.isfile(archive):
        added = [f"-XX:SharedArchiveFile={archive}"]
    elif (staging := _staging(archive)) is not None:
        atexit.register(_keep, staging, archive, started)
        added = [f"-XX:ArchiveClassesAtExit={staging}"]
    else:
        return []
    # quiet: the archive's writer warns about every class it leaves out (signed jars')
    return [*added, "-Xlog:cds=error,cds+dynamic=error"]


def class_archive_path(java: str) -> str:
    """``<kcli cache>/spark-cds/<key>.jsa``: one archive per Java runtime (its resolved path,
    size and time) and Spark (SPARK_HOME, else the installed pyspark, and its version)."""
    import hashlib

    import pyspark

    runtime = os.path.realpath(java)
    stat = os.stat(runtime)
    home = os.path.realpath(os.environ.get("SPARK_HOME") or os.path.dirname(pyspark.__file__))
    key = "\0".join([runtime, str(stat.st_size), str(stat.st_mtime_ns), home, pyspark.__version__])
    return cache_dir("spark-cds", hashlib.sha256(key.encode()).hexdigest()[:20] + ".jsa")


def _staging(archive: str) -> str | None:
    """A file of this process for the JVM to write ``archive`` to; None when the cache is not
    writable. Older ones of processes gone are removed first."""
    folder = os.path.dirname(archive)
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError:
        return None
    if not os.access(folder, os.W_OK):
        return None
    _remove_orphans(folder)
    return f"{archive}.{os.getpid()}.tmp"


def _remove_orphans(folder: str) -> None:
    """Remove the archives being written (``<name>.<pid>.tmp``) of kcli processes that ended
    without keeping them (killed, or ended without running their exit handlers)."""
    for name in os.listdir(folder):
        pid = name.split(".")[-2] if name.endswith(".tmp") and name.count(".") >= 3 else ""
        if pid.isdigit() and not _alive(int(pid)):
            with contextlib.suppress(OSError):
                os.unlink(os.path.join(folder, name))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True                                 # another user's process: alive
    return True


def _keep(staging: str, path: str, started: threading.Event, wait_s: float = 120.0) -> None:
    """At exit, after a session that started (``started``): stop it, end the JVM this process started (its
    gateway exits on its stdin's end), wait for the JVM to write the archive, and keep the archive
    as the cache's when the JVM ended well (exit 0), with at most one older one (``_KEPT``).
    Without a session (its start failed: a cluster master that never answered) nothing waits.
    Quiet: a JVM that is gone, late or failed, or a Ctrl-C during the wait, leaves no archive (the
    file it was writing is an orphan ``_remove_orphans`` removes), and a later audit tries again."""
    from pyspark import SparkContext

    sc, proc = SparkContext._active_spark_context, getattr(SparkContext._gateway, "proc", None)
    if not started.is_set() or proc is None:
        return                          # a file the JVM may still write: _remove_orphans, later
    try:
        if sc is not None:
            # stopped first: its accumulator server would print the JVM's leaving as a traceback
            with contextlib.suppress(Exception):
                sc.stop()
        with contextlib.suppress(Exception):
            proc.stdin.close()
        if proc.wait(wait_s) == 0 and os.path.getsize(staging) > 0:
            os.replace(staging, path)
            folder = os.path.dirname(path)
            archives = sorted((os.path.join(folder, n) for n in os.listdir(folder) if n.endswith(".jsa")),
                              key=os.path.getmtime, reverse=True)
            for old in archives[_KEPT:]:
                os.unlink(old)
    except KeyboardInterrupt:
        return              # Ctrl-C while it stops or writes: no archive this time, no traceback
    except Exception:  # noqa: BLE001 - subprocess.TimeoutExpired, OSError: no archive this time
        pass
    with contextlib.suppress(OSError):
        os.unlink(staging)

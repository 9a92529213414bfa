"""Java's TLS stores (``ssl.truststore.*``, ``ssl.keystore.*``) as kcli's clients take them: librdkafka
and kafka-python read PEM files, so a PKCS12 store is opened with the ``cryptography`` library and
written as PEM files in a private temporary directory, named with the process's PID (removed when
the process ends, on SIGTERM and SIGHUP too, and after a SIGKILL by the next kcli process that
writes such files; a private key stays encrypted with the store's key password). A PEM store is used
as is. A JKS (or JCEKS) store, which no Python or C library here reads, is refused with the keytool
command that converts it."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile

from kcli.errors import UsageError
from kcli.inputs import shown

_JKS_MAGIC = (b"\xfe\xed\xfe\xed", b"\xce\xce\xce\xce")     # JKS, JCEKS
_workdir: str | None = None


def translate_stores(props: dict[str, str]) -> dict[str, str]:
    """``props`` with the Java store keys replaced by ``ssl.ca.location``,
    ``ssl.certificate.location``, ``ssl.key.location`` and ``ssl.key.password``."""
    out = dict(props)
    if "ssl.truststore.certificates" in out:                    # inline PEM
        out.setdefault("ssl.ca.location", _write("truststore.pem", out.pop("ssl.truststore.certificates")))
    if "ssl.truststore.location" in out:
        location = out.pop("ssl.truststore.location")
        out.setdefault("ssl.ca.location", _trusted(location, out.get("ssl.truststore.password")))
    if "ssl.keystore.key" in out or "ssl.keystore.certificate.chain" in out:   # inline PEM
        out.setdefault("ssl.key.location", _write("keystore-key.pem", out.pop("ssl.keystore.key", "")))
        out.setdefault("ssl.certificate.location",
                       _write("keystore-chain.pem", out.pop("ssl.keystore.certificate.chain", "")))
    if "ssl.keystore.location" in out:
        location = out.pop("ssl.keystore.location")
        store_password = out.pop("ssl.keystore.password", None)
        key_password = out.get("ssl.key.password") or store_password
        cert, key = _identity(location, store_password, key_password)
        out.setdefault("ssl.certificate.location", cert)
        out.setdefault("ssl.key.location", key)
        if key_password:
            out.setdefault("ssl.key.password", key_password)
    # The store type is read from the file itself (PEM text, PKCS12, or JKS refused above).
    for leftover in ("ssl.truststore.password", "ssl.keystore.password", "ssl.truststore.type",
                     "ssl.keystore.type"):
        out.pop(leftover, None)
    return out


def _read(location: str, what: str) -> bytes:
    try:
        with open(os.path.expanduser(location), "rb") as fh:
            data = fh.read()
    except OSError as exc:
        raise UsageError(f"{what} '{shown(location, 200)}' cannot be read: {exc.strerror}") from None
    if data[:4] in _JKS_MAGIC:
        raise UsageError(
            f"{what} '{shown(location, 200)}' is a Java KeyStore (JKS), which kcli's clients cannot read; "
            f"convert it: keytool -importkeystore -srckeystore {location} -destkeystore {location}.p12 "
            f"-deststoretype PKCS12, then give the .p12 file")
    return data


def _trusted(location: str, password: str | None) -> str:
    """A PEM file of the certificates the truststore trusts."""
    data = _read(location, "ssl.truststore.location")
    if data.lstrip().startswith(b"-----BEGIN"):
        return location
    from cryptography.hazmat.primitives.serialization import Encoding

    _, cert, extra = _pkcs12(data, password, "ssl.truststore.location", location)
    certs = ([cert] if cert is not None else []) + list(extra)
    if not certs:
        raise UsageError(f"ssl.truststore.location '{shown(location, 200)}' holds no certificate")
    return _write("truststore.pem", b"".join(c.public_bytes(Encoding.PEM) for c in certs))


def _identity(location: str, store_password: str | None, key_password: str | None) -> tuple[str, str]:
    """(certificate chain PEM file, private key PEM file) of the keystore."""
    data = _read(location, "ssl.keystore.location")
    if data.lstrip().startswith(b"-----BEGIN"):
        return location, location
    from cryptography.hazmat.primitives.serialization import (BestAvailableEncryption, Encoding,
                                                              NoEncryption, PrivateFormat)

    key, cert, extra = _pkcs12(data, store_password, "ssl.keystore.location", location)
    if key is None or cert is None:
        raise UsageError(f"ssl.keystore.location '{shown(location, 200)}' holds no key and certificate")
    chain = b"".join(c.public_bytes(Encoding.PEM) for c in [cert, *extra])
    encryption = BestAvailableEncryption(key_password.encode()) if key_password else NoEncryption()
    key_pem = key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, encryption)
    return _write("keystore-chain.pem", chain), _write("keystore-key.pem", key_pem)


def _pkcs12(data: bytes, password: str | None, what: str, location: str):
    from cryptography.hazmat.primitives.serialization.pkcs12 import load_key_and_certificates

    try:
        return load_key_and_certificates(data, password.encode() if password else None)
    except (ValueError, TypeError) as exc:
        raise UsageError(f"{what} '{shown(location, 200)}' is neither PEM nor a PKCS12 store this "
                         f"password opens ({shown(str(exc), 120)})") from None


_PREFIX = "kcli-stores-"


def _write(name: str, content: str | bytes) -> str:
    global _workdir
    if _workdir is None:
        remove_stale_workdirs()
        _workdir = tempfile.mkdtemp(prefix=f"{_PREFIX}{os.getpid()}-")   # mode 0700
        atexit.register(_remove_workdir)
        _remove_on_signals()
    fd, path = tempfile.mkstemp(suffix="-" + name, dir=_workdir)      # mode 0600
    with os.fdopen(fd, "wb") as fh:
        fh.write(content.encode() if isinstance(content, str) else content)
    return path


def _remove_workdir() -> None:
    if _workdir is not None:
        shutil.rmtree(_workdir, True)


def _remove_on_signals() -> None:
    """SIGTERM and SIGHUP end the process without atexit: remove the key files first, then end
    as the signal would (its default action, so the exit status still names it). Only where the
    signal has its default handler (a command that handles it, the broker, keeps its own), and
    from the main thread (the only one that may set handlers)."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return

    def removed_then_default(signum, frame):
        _remove_workdir()
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)

    for signum in (signal.SIGTERM, signal.SIGHUP):
        if signal.getsignal(signum) is signal.SIG_DFL:
            signal.signal(signum, removed_then_default)


def remove_stale_workdirs() -> None:
    """The key files a kcli process killed with SIGKILL left (nothing runs then): the work
    directories of this user whose process (the PID in the name) is gone."""
    base = tempfile.gettempdir()
    try:
        names = [n for n in os.listdir(base) if n.startswith(_PREFIX)]
    except OSError:
        return
    for name in names:
        pid = name[len(_PREFIX):].partition("-")[0]
        path = os.path.join(base, name)
        try:
            if not pid.isdigit() or os.lstat(path).st_uid != os.getuid() or _alive(int(pid)):
                continue
        except OSError:
            continue
        shutil.rmtree(path, True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:             # another user's process
        return True
    return True

"""What kafka-python's protocol layer costs a command before its first request, made cheaper
(issue 28: a drop-in within 0.08x the Java tool's wall time). Two things, installed by
``kcli.protocol`` before kafka-python's message modules load:

- ``load_json``: kafka-python reads each message class's JSON schema through
  ``importlib.resources``, whose import (tempfile, shutil, zipfile, random...) was ~40 M
  instructions of a drop-in's ~550 M. The same files, read with ``open``, parsed the same way
  (tests/protocol/test_protocol_import.py compares every schema with kafka-python's own loader),
  and kept parsed in the same cache as the code objects below (issue 28).
- ``compile``: kafka-python generates an encoder and a decoder per message version and compiles
  each on first use; the code objects are kept under ``kcli.xdg.cache_dir("codegen")`` (keyed by
  the generated source, checked whole when read back), as Python keeps ``.pyc`` files. A cache
  that cannot be read or written is only skipped.
"""

from __future__ import annotations

import os
import re
import sys
import types

_COMMENTS = r"(?m)((?:^\s*//.*\n?)+)"          # kafka-python's COMMENTS_REGEX, as it applies it


def _directory(package) -> str:
    """The folder of ``package`` (a module, a package name, or None: kafka-python's resources)."""
    if package is None:
        return os.path.join(sys.modules["kafka.protocol.schemas"].__path__[0], "resources")
    if isinstance(package, str):
        __import__(package)
        package = sys.modules[package]
    return os.path.dirname(package.__file__)


def load_json(msg_type: str, package=None) -> dict:
    """kafka.protocol.schemas.load_json's answer for ``msg_type``, without importlib.resources;
    kept as its marshalled value under the codegen cache (``_cached_schema``), keyed by the
    file's path, size and modification time, and read back from there."""
    path = os.path.join(_directory(package), msg_type + ".json")
    data, keep = _cached_schema(path)
    if data is None:
        data = _parse_schema(path)
        keep(data)
    return data


def _cached_schema(path: str):
    """(the schema kept for the file at ``path`` as it is now, or None; a function that keeps
    one). A 10k-group listing's dozen schemas: ~1.1 ms of parsing and the json module's import
    (~1.4 ms, which nothing else of a listing loads) against ~0.2 ms of reads (issue 28). A cache
    that cannot be read or written is only skipped."""
    import marshal

    try:
        st = os.stat(path)
        stamp = (path, st.st_size, st.st_mtime_ns)
        kept = os.path.join(_cache_dir(), "schema-" + path.replace(os.sep, "%").replace(":", "%"))
    except (OSError, ValueError):
        return None, lambda data: None
    try:
        with open(kept, "rb") as f:
            kept_stamp, data = marshal.loads(f.read())
        if kept_stamp == stamp:
            return data, None
    except (OSError, ValueError, EOFError, TypeError):
        pass

    def keep(data: dict) -> None:
        try:
            os.makedirs(os.path.dirname(kept), exist_ok=True)
            part = f"{kept}.{os.getpid()}"
            with open(part, "wb") as f:
                f.write(marshal.dumps((stamp, data)))
            os.replace(part, kept)
        except (OSError, ValueError):
            pass

    return None, keep


def _parse_schema(path: str) -> dict:
    import json

    with open(path, encoding="utf-8") as f:
        text = f.read()
    data = json.loads(re.sub(_COMMENTS, "", text))
    comments = re.findall(_COMMENTS, text)
    if comments:
        data["license"] = comments[0]
        if len(comments) > 1:
            data["doc"] = comments[1]
    common = {s["name"]: s["fields"] for s in data.get("commonStructs", [])}
    if common:
        _resolve_common_structs(data.get("fields", []), common)
    return data


def _resolve_common_structs(fields: list, common: dict) -> None:
    """A field typed by a common struct gets that struct's fields (kafka-python's rule)."""
    for field in fields:
        ftype = field["type"]
        struct = ftype[2:] if ftype.startswith("[]") else ftype
        if struct and struct[0].isupper() and struct in common and "fields" not in field:
            field["fields"] = common[struct]
        if "fields" in field:
            _resolve_common_structs(field["fields"], common)


def install_schema_loader() -> None:
    """Registers this loader as ``kafka.protocol.schemas.load_json`` before kafka-python's
    ``kafka.protocol.schemas`` imports its own (nothing when it already has)."""
    name = "kafka.protocol.schemas.load_json"
    if name in sys.modules:
        return
    module = types.ModuleType(name, "kcli's stand-in for kafka-python's schema loader (kcli.protocol.startup)")
    vars(module)["load_json"] = load_json
    sys.modules[name] = module


_CACHE: str | None = None


def _cache_dir() -> str:
    global _CACHE
    if _CACHE is None:
        from kafka.version import __version__ as kafka_version
        from kcli.xdg import cache_dir

        _CACHE = cache_dir("codegen", f"{sys.implementation.cache_tag}-kafka-python-{kafka_version}")
    return _CACHE


def cached_compile(source, filename, mode, *args, **kwargs):
    """``compile`` for kafka-python's generated codecs, through a cache of their code objects."""
    if args or kwargs or not isinstance(source, str):
        return compile(source, filename, mode, *args, **kwargs)
    import marshal
    import zlib

    key = f"{zlib.crc32(source.encode()):08x}-{zlib.crc32(filename.encode()):08x}-{len(source)}"
    path = os.path.join(_cache_dir(), key)
    try:
        with open(path, "rb") as f:
            kept_source, kept_filename, code = marshal.loads(f.read())
        if kept_source == source and kept_filename == filename:
            return code
    except (OSError, ValueError, EOFError, TypeError):
        pass
    code = compile(source, filename, mode)
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        part = f"{path}.{os.getpid()}"
        with open(part, "wb") as f:
            f.write(marshal.dumps((source, filename, code)))
        os.replace(part, path)
    except OSError:
        pass
    return code


def install_compile_cache() -> None:
    """kafka-python's codec generator (``kafka.protocol.schemas.fields.struct``) compiles
    through ``cached_compile``."""
    from kafka.protocol.schemas.fields import struct

    struct.compile = cached_compile

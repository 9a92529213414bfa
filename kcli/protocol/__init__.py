"""The Kafka wire messages kcli speaks, on kafka-python's JSON-schema protocol layer.

This is the one module that declares message classes. kafka-python registers response classes
process-wide by API key, so the KIP versions declared here replace the stock ones in every
kafka-python client of the process; they are supersets of the stock schemas, so that is safe.

KIP versions (as the seeds state them, docs/kips.md, "What each KIP feature needs from the broker"):
- DescribeTopicPartitions v1: tagged Partition.CreationTimeMs (tag 0, default -1), KIP-1327
- Metadata v14: tagged Partition.PartitionAgeMs (tag 0, default -1), KIP-1327
- ConsumerGroupHeartbeat v2 / ConsumerGroupDescribe v2: GroupCreationTimeMs, KIP-1282
  (specs for API keys 68 and 69 live in ``kcli/protocol/schemas``, which kafka-python lacks).
- StreamsGroupDescribe (key 89) v0-v2: v1 is KIP-1331's (Apache Kafka 4.4: the topology
  description, AssignorName), v2 adds GroupCreationTimeMs (KIP-1282, which numbered it v1).
- StreamsGroupHeartbeat (key 88) v0-v2: v0-v1 as Apache Kafka 4.4.0's own JSON (v1: KIP-1331's
  TopologyDescriptionRequired, AcceptableRecoveryLag), v2 adds GroupCreationTimeMs (KIP-1282).

Besides, a few of kafka-python's own messages (``_STOCK``), declared here from kafka-python's own
schemas so that a command loads the messages it sends and no others (issue 28).
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import _thread
import types
import weakref


def _bare_package(name: str) -> None:
    """Registers package ``name`` as the import system would, minus running its ``__init__``, so
    its submodules import alone. kafka-python's package ``__init__`` files import everything
    below them: ``kafka`` the whole client (KafkaConsumer, KafkaProducer, KafkaAdminClient),
    ``kafka.protocol.admin`` every admin message class, ``kafka.net`` the asyncio client; each is
    start-up time kcli's commands do not use. Looking up a name only ``__init__`` defines
    (``from kafka import KafkaConsumer``) runs it then."""
    if name in sys.modules:
        return
    parent, _, child = name.rpartition(".")
    spec = importlib.util.find_spec(name)
    package = importlib.util.module_from_spec(spec)

    def __getattr__(attr: str):
        try:                                    # ``from kafka import errors``: just the submodule
            return importlib.import_module(f"{name}.{attr}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{name}.{attr}":
                raise
        del package.__getattr__
        spec.loader.exec_module(package)
        return getattr(package, attr)

    package.__getattr__ = __getattr__
    sys.modules[name] = package
    if parent:
        setattr(sys.modules[parent], child, package)


_bare_package("kafka")
from kcli.protocol import startup as _startup  # noqa: E402

_startup.install_schema_loader()        # before kafka-python's message modules read their schemas
import kafka.protocol as _kp  # noqa: E402 - after the package is registered

for _name in ("kafka.protocol.admin", "kafka.protocol.consumer", "kafka.net"):
    _bare_package(_name)

from kafka.protocol.api_header import ResponseClassRegistry  # noqa: E402
from kafka.protocol.api_message import ApiMessage  # noqa: E402
from kafka.protocol.metadata import metadata as _metadata  # noqa: E402

from kafka.protocol.schemas.fields.codecs.types import BitField as _BitField  # noqa: E402
from kafka.protocol.schemas.fields.codecs.types import String as _String  # noqa: E402
from kafka.protocol.schemas.fields.codecs.types import UnsignedVarInt32 as _UnsignedVarInt32  # noqa: E402
from kafka.protocol.schemas.fields.struct import StructField as _StructField  # noqa: E402

from kcli.protocol import schemas as _schemas  # noqa: E402

_startup.install_compile_cache()


class _Tail:
    """The rest of a decode buffer as the stream kafka-python's tagged-field decoders read
    (``read`` and ``tell``), without copying it."""

    __slots__ = ("_data", "_start", "_pos")

    def __init__(self, data, pos: int):
        self._data, self._start, self._pos = data, pos, pos

    def read(self, size: int = -1) -> bytes:
        end = len(self._data) if size < 0 else self._pos + size
        chunk = bytes(self._data[self._pos:end])
        self._pos += len(chunk)
        return chunk

    def tell(self) -> int:
        return self._pos - self._start


def _emit_tagged_decode(self, ctx, var_name, indent, version):
    """kafka-python 3.0's generated decoders, for a struct whose tagged fields are present, but
    reading them from a ``_Tail`` where kafka-python copies the whole rest of the buffer into a
    BytesIO: with a tag on every partition (Metadata v14's PartitionAgeMs) decoding was
    quadratic, 7 s for 100k partitions instead of 1 s (bench/reset_scale.py). The same names
    and assignments as the method it replaces (kafka/protocol/schemas/fields/struct.py)."""
    tf_var, tail_var = ctx.next_var("tf"), ctx.next_var("bio")
    ctx.globs[tf_var] = self.tagged_fields(version)
    ctx.globs["_KcliTail"] = _Tail
    ctx.emit(indent, f"{tail_var} = _KcliTail(data, pos)")
    ctx.emit(indent, f"_tfd = {tf_var}.decode({tail_var}, version={version})")
    ctx.emit(indent, f"pos += {tail_var}.tell()")
    ctx.emit(indent, "if _tfd:")
    ctx.emit(indent, "    for _tk, _tv in _tfd.items():")
    ctx.emit(indent, '        if _tk.startswith("_"):')
    ctx.emit(indent, f"            if {var_name}.unknown_tags is None: {var_name}.unknown_tags = {{}}")
    ctx.emit(indent, f"            {var_name}.unknown_tags[_tk] = _tv")
    ctx.emit(indent, "        else:")
    ctx.emit(indent, f"            if {var_name}.tags is None: {var_name}.tags = set()")
    ctx.emit(indent, f"            {var_name}.tags.add(_tk)")
    ctx.emit(indent, f"            setattr({var_name}, _tk, _tv)")


assert hasattr(_StructField, "_emit_tagged_decode"), "kafka-python's decoder generator changed"
_StructField._emit_tagged_decode = _emit_tagged_decode


def _emit_bitfield_decode(cls, ctx, var_name, indent, compact=False):
    """kafka-python 3.0's generated decoder for a 32-bit field of flags (AuthorizedOperations),
    but with the value a broker sends when they were not asked for (INT32_MIN, 0x80000000 read
    unsigned: kafka-python's ``{31}``, then None) made None at once: its bit-by-bit loop took
    ~10 us per group, a tenth of a 10k-group DescribeGroups' decoding. Otherwise the same code
    as the method it replaces (kafka/protocol/schemas/fields/codecs/types.py)."""
    ctx.globs["_bitfield_from_32"] = cls.from_32_bit_field
    raw = ctx.next_var("bfr")
    ctx.emit(indent, '%s = unpack_from(">I", data, pos)[0]' % raw)
    ctx.emit(indent, "pos += 4")
    ctx.emit(indent, "%s = None if %s == 0x80000000 else _bitfield_from_32(%s)" % (var_name, raw, raw))
    ctx.emit(indent, "if %s == {31}: %s = None" % (var_name, var_name))


assert _BitField.from_32_bit_field(0x80000000) == {31}, "kafka-python's flags decoder changed"
_BitField.emit_decode_from = classmethod(_emit_bitfield_decode)


def _emit_uvarint_decode(cls, ctx, var_name, indent):
    """kafka-python 3.0's generated decoder for an unsigned varint (every compact length and
    count, every tagged-field header), read in one step when it is one byte (below 128: nearly
    every length a broker sends), else as kafka-python's loop does (codecs/types.py)."""
    b, shift = ctx.next_var("b"), ctx.next_var("sh")
    ctx.emit(indent, f"{var_name} = data[pos]")
    ctx.emit(indent, "pos += 1")
    ctx.emit(indent, f"if {var_name} & 0x80:")
    ctx.emit(indent, f"    {var_name} &= 0x7f")
    ctx.emit(indent, f"    {shift} = 7")
    ctx.emit(indent, "    while True:")
    ctx.emit(indent, f"        {b} = data[pos]")
    ctx.emit(indent, "        pos += 1")
    ctx.emit(indent, f"        {var_name} |= ({b} & 0x7f) << {shift}")
    ctx.emit(indent, f"        if not ({b} & 0x80): break")
    ctx.emit(indent, f"        {shift} += 7")


_UnsignedVarInt32.emit_decode_from = classmethod(_emit_uvarint_decode)

_DECODER_HEAD = "def _decode(data, pos):"        # kafka-python's StructField.compiled_decode_from
_TEXT = '    _text = str(data, "latin-1")'
_stock_string_decode = _String.emit_decode_from
_stock_compiled_decode_from = _StructField.compiled_decode_from
_RECORDS_DECODERS: set[int] = set()             # threads generating a decoder of record batches


def _carries_records(field) -> bool:
    """Whether a message (a struct, an array, a field) has a ``records`` field at any version."""
    if getattr(field, "_type_str", None) == "records":
        return True
    inner = getattr(field, "array_of", None)
    if inner is not None and _carries_records(inner):
        return True
    return any(_carries_records(f) for f in getattr(field, "_fields", None) or ())


def _compiled_decode_from(self, version, compact=False, tagged=False, data_class=None):
    """kafka-python's StructField.compiled_decode_from; a message that carries record batches
    (Produce requests, which the embedded broker decodes, and Fetch answers) gets kafka-python's
    own string decoding, without ``_text``: a Latin-1 copy of the whole message, its records
    included, would cost more than its few strings save."""
    decoder = self._compiled_encoders.get(("decode", version, compact, tagged, data_class))
    if decoder is not None:
        return decoder
    if not _carries_records(self):
        return _stock_compiled_decode_from(self, version, compact, tagged, data_class)
    thread = _thread.get_ident()
    _RECORDS_DECODERS.add(thread)
    try:
        return _stock_compiled_decode_from(self, version, compact, tagged, data_class)
    finally:
        _RECORDS_DECODERS.discard(thread)


_StructField.compiled_decode_from = _compiled_decode_from


def _emit_string_decode(self, ctx, var_name, indent, compact=False):
    """kafka-python 3.0's generated decoder for a string, but cut from the answer decoded once as
    Latin-1 (``_text``, one character per byte: the same positions) when it is ASCII, which is
    UTF-8 as is; any other string is decoded from its UTF-8 bytes as kafka-python does. One
    slice per string instead of a memoryview slice and a decode: a tenth of a 10k-group
    ListGroups' and DescribeGroups' decoding (issue 28). Outside a generated decoder (whose
    first line kafka-python writes) and in a decoder of record batches, kafka-python's own code."""
    if (self.encoding != "utf-8" or not ctx.lines or ctx.lines[0] != _DECODER_HEAD
            or _thread.get_ident() in _RECORDS_DECODERS):
        return _stock_string_decode(self, ctx, var_name, indent, compact)
    if ctx.lines[1:2] != [_TEXT]:                 # the answer as text, once, before any field
        ctx.lines.insert(1, _TEXT)
    ln = ctx.next_var("ln")
    if compact:
        _UnsignedVarInt32.emit_decode_from(ctx, ln, indent)
        ctx.emit(indent, f"{ln} -= 1")
    else:
        ctx.emit(indent, f'{ln} = unpack_from(">h", data, pos)[0]')
        ctx.emit(indent, "pos += 2")
    ctx.emit(indent, f"if {ln} < 0:")
    ctx.emit(indent, f"    {var_name} = None")
    ctx.emit(indent, "else:")
    ctx.emit(indent, f"    {var_name} = _text[pos:pos+{ln}]")
    ctx.emit(indent, f"    if not {var_name}.isascii():")
    ctx.emit(indent, f'        {var_name} = str(data[pos:pos+{ln}], "utf-8")')
    ctx.emit(indent, f"    pos += {ln}")


_String.emit_decode_from = _emit_string_decode


def _find(fields, name):
    for f in fields:
        if f["name"] == name:
            return f
    raise KeyError(name)


class MetadataRequest(_metadata.MetadataRequest):
    @classmethod
    def json_patch(cls, json):
        json["validVersions"] = "0-14"
        return json


class MetadataResponse(_metadata.MetadataResponse):
    @classmethod
    def json_patch(cls, json):
        json = _metadata.MetadataResponse.json_patch.__func__(cls, json)
        json["validVersions"] = "0-14"
        parts = _find(_find(json["fields"], "Topics")["fields"], "Partitions")
        parts["fields"].append({
            "name": "PartitionAgeMs", "type": "int64", "versions": "14+",
            "taggedVersions": "14+", "tag": 0, "default": "-1", "ignorable": True,
        })
        return json


def _describe_topic_partitions_request(json):
    json["validVersions"] = "0-1"
    return json


def _describe_topic_partitions_response(json):
    json["validVersions"] = "0-1"
    parts = _find(_find(json["fields"], "Topics")["fields"], "Partitions")
    parts["fields"].insert(0, {
        "name": "CreationTimeMs", "type": "int64", "versions": "1+",
        "taggedVersions": "1+", "tag": 0, "default": "-1", "ignorable": True,
    })
    return json


def _list_offsets_request(json):
    """kafka-python's own patch of ListOffsetsRequest (kafka/protocol/consumer/offsets.py):
    ReplicaId defaults to -1, a client's, never a follower's 0."""
    json["fields"][0]["default"] = -1
    return json


# Each request/response pair below is declared on first use (module ``__getattr__``), on
# ApiMessage from the schema its class name loads, patched by ``_PATCHES``: parsing a spec is
# start-up time a command that never sends the message would pay.
# - The group APIs kafka-python lacks (keys 68, 69, 88, 89: no stock class can take their keys),
#   from ``kcli/protocol/schemas``; DescribeTopicPartitions v1 (KIP-1327), from kafka-python's
#   schema, not as subclasses of kafka.protocol.admin.topics' classes: that module builds 16
#   message classes kcli does not send.
_OWN_SCHEMAS = ("ConsumerGroupHeartbeat", "ConsumerGroupDescribe", "StreamsGroupDescribe",
                "StreamsGroupHeartbeat")
_ON_USE = (*_OWN_SCHEMAS, "DescribeTopicPartitions")
# - _STOCK: kafka-python's messages as kafka-python declares them (its patches are _PATCHES'),
#   where its module declares many more than kcli sends: kafka.protocol.consumer.group's 14
#   classes (every group-membership message) for a reset's OffsetFetch, consumer.offsets' 4 for
#   ListOffsets, admin.configs' 8 for describe topics' DescribeConfigs. kafka-python's own
#   classes stay as they are, for the broker and any kafka-python client in the process: these
#   are the same messages.
_STOCK = ("OffsetFetch", "OffsetCommit", "OffsetDelete", "ListOffsets", "DescribeConfigs")
_PATCHES = {"DescribeTopicPartitionsRequest": _describe_topic_partitions_request,
            "DescribeTopicPartitionsResponse": _describe_topic_partitions_response,
            "ListOffsetsRequest": _list_offsets_request}


_DECLARING = _thread.allocate_lock()  # threading's Lock, without importing threading   # the embedded broker's thread and a client may both ask first


def _declare(api: str) -> None:
    with _DECLARING:
        if f"{api}Response" in globals():
            return
        kwds = {"load_json": _schemas} if api in _OWN_SCHEMAS else {}
        for name in (f"{api}Request", f"{api}Response"):
            body = {"__module__": __name__, "__qualname__": name}
            if name in _PATCHES:
                body["json_patch"] = classmethod(lambda cls, json, patch=_PATCHES[name]: patch(json))
            globals()[name] = types.new_class(name, (ApiMessage,), kwds, lambda ns, body=body: ns.update(body))


def claim_response_classes() -> None:
    """Registers the KIP response classes again. kafka-python's registry is process-global and the
    class declared last for an API key wins: kafka-python's stock DescribeTopicPartitions module,
    imported after this one (the broker's tables, a kafka-python client in the same process),
    would otherwise decode kcli's v1 responses. Connections call this before they send, and
    ``_collect`` after it imports every stock module (a command's first Produce does, after its
    connections were opened: the broker check saved no creation times, issue 45)."""
    declared = [globals()[f"{api}Response"] for api in _ON_USE if f"{api}Response" in globals()]
    for cls in (MetadataResponse, *declared):
        ResponseClassRegistry.register_response_class(weakref.proxy(cls))


def _collect():
    """Request and response classes by API key: every stock kafka-python message class, with
    the KIP classes above taking precedence."""
    import pkgutil

    for info in pkgutil.walk_packages(_kp.__path__, _kp.__name__ + "."):
        if (".schemas" in info.name or ".old" in info.name          # .old: pre-schema classes
                or info.name.endswith(("generate_stubs", "parser"))):
            continue
        importlib.import_module(info.name)
    for api in _ON_USE:
        _declare(api)
    claim_response_classes()        # the stock modules just imported registered their own classes
    requests: dict[int, type] = {}
    responses: dict[int, type] = {}

    def walk(cls):
        for sub in cls.__subclasses__():
            if getattr(sub, "_class_version", None) is None and getattr(sub, "_json", None):
                table = requests if sub.type == "request" else responses
                if sub.__module__ == __name__ or sub.API_KEY not in table:
                    table[sub.API_KEY] = sub
            walk(sub)

    walk(ApiMessage)
    return requests, responses


def __getattr__(name):
    """REQUESTS and RESPONSES are built on first use: walking every kafka-python message module
    is the broker's need, not a client command's (it costs start-up time); so are the group
    API classes (``_ON_USE``)."""
    if name in ("REQUESTS", "RESPONSES"):
        requests, responses = _collect()
        globals().update(REQUESTS=requests, RESPONSES=responses)
        return globals()[name]
    api = name.removesuffix("Request").removesuffix("Response")
    if (api in _ON_USE or api in _STOCK) and name in (f"{api}Request", f"{api}Response"):
        _declare(api)
        return globals()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = [
    "ApiMessage", "REQUESTS", "RESPONSES",
    "MetadataRequest", "MetadataResponse",
    "DescribeTopicPartitionsRequest", "DescribeTopicPartitionsResponse",
    "ConsumerGroupHeartbeatRequest", "ConsumerGroupHeartbeatResponse",
    "ConsumerGroupDescribeRequest", "ConsumerGroupDescribeResponse",
    "StreamsGroupDescribeRequest", "StreamsGroupDescribeResponse",
    "StreamsGroupHeartbeatRequest", "StreamsGroupHeartbeatResponse",
    *(f"{api}{kind}" for api in _STOCK for kind in ("Request", "Response")),
]

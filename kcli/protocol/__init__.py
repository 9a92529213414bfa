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
- Share groups (KIP-932), at the versions Apache Kafka 4.4.0 serves: ShareGroupHeartbeat (76) and
  ShareGroupDescribe (77) v1, ShareFetch (78) and ShareAcknowledge (79) v1-v2 (v2: KIP-1206's
  ShareAcquireMode, KIP-1222's renew), DescribeShareGroupOffsets (90) v0-v1 (v1: Lag, KIP-1226),
  AlterShareGroupOffsets (91) and DeleteShareGroupOffsets (92) v0.
- UnregisterBroker (64) and UnregisterController (94) v0, which kafka-python lacks (kafka-cluster's
  unregister and unregister-controller).

Besides, a few of kafka-python's own messages (``_STOCK``), declared here from kafka-python's own
schemas so that a command loads the messages it sends and no others.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import threading
import types
import weakref


def _bare_package(name: str) -> None:
    """Registers package ``name`` as the import system would, minus running its ``__init__``, so
    its submodules import alone. kafka-python's package ``__init__`` files import everything
    below them: ``kafka`` the whole client (KafkaConsumer, KafkaProducer, KafkaAdminClient),
    ``kafka.protocol.admin`` every admin message class, ``kafka.net`` the asyncio client; each is
    start-up time kcli's commands do not use (``import kafka`` alone: ~135 ms). Looking up a
    name only ``__init__`` defines (``from kafka import KafkaConsumer``) runs it then. No code of
    kafka-python's is replaced; a lazy ``__init__`` upstream (docs/upstream, patch 0006) would
    let this go."""
    if name in sys.modules:
        return
    parent, _, child = name.rpartition(".")
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None:
        raise ModuleNotFoundError(f"No module named {name!r}", name=name)
    loader = spec.loader
    package = importlib.util.module_from_spec(spec)

    def __getattr__(attr: str):
        try:                                    # ``from kafka import errors``: just the submodule
            return importlib.import_module(f"{name}.{attr}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{name}.{attr}":
                raise
        del package.__getattr__
        loader.exec_module(package)
        return getattr(package, attr)

    vars(package)["__getattr__"] = __getattr__
    sys.modules[name] = package
    if parent:
        setattr(sys.modules[parent], child, package)


_bare_package("kafka")
import kafka.protocol as _kp  # noqa: E402 - after the package is registered

for _name in ("kafka.protocol.admin", "kafka.protocol.consumer", "kafka.net"):
    _bare_package(_name)

from kafka.protocol.api_header import ResponseClassRegistry  # noqa: E402
from kafka.protocol.api_message import ApiMessage  # noqa: E402
from kafka.protocol.metadata import metadata as _metadata  # noqa: E402

from kcli.protocol import schemas as _schemas  # noqa: E402


def _find(fields, name):
    for f in fields:
        if f["name"] == name:
            return f
    raise KeyError(name)


# Metadata v14 tags every partition (PartitionAgeMs), and kafka-python 3.0.12 decodes a tagged
# struct by copying the rest of the answer (docs/upstream/README.md): quadratic in the number of
# partitions. Every Metadata kcli sends is v13 or below, but for the partition ages themselves.
UNTAGGED_METADATA_VERSION = 13


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
# - The group APIs kafka-python lacks (keys 68, 69, 88, 89 and the share-group keys 76-79, 90-92:
#   no stock class can take their keys),
#   from ``kcli/protocol/schemas``; DescribeTopicPartitions v1 (KIP-1327), from kafka-python's
#   schema, not as subclasses of kafka.protocol.admin.topics' classes: that module builds 16
#   message classes kcli does not send.
SHARE_APIS = ("ShareGroupHeartbeat", "ShareGroupDescribe", "ShareFetch", "ShareAcknowledge",
              "DescribeShareGroupOffsets", "AlterShareGroupOffsets", "DeleteShareGroupOffsets")
# kafka-cluster's unregister and unregister-controller (keys 64 and 94, which kafka-python lacks)
UNREGISTER_APIS = ("UnregisterBroker", "UnregisterController")
_OWN_SCHEMAS = ("ConsumerGroupHeartbeat", "ConsumerGroupDescribe", "StreamsGroupDescribe",
                "StreamsGroupHeartbeat", *SHARE_APIS, *UNREGISTER_APIS)
_ON_USE = (*_OWN_SCHEMAS, "DescribeTopicPartitions")
# - _STOCK: kafka-python's messages as kafka-python declares them (its patches are _PATCHES'),
#   where its module declares many more than kcli sends: kafka.protocol.consumer.group's 14
#   classes (every group-membership message) for a reset's OffsetFetch, consumer.offsets' 4 for
#   ListOffsets, admin.configs' 8 for describe topics' DescribeConfigs. kafka-python's own
#   classes stay as they are, for the broker and any kafka-python client in the process: these
#   are the same messages.
_STOCK = ("OffsetFetch", "OffsetCommit", "OffsetDelete", "ListOffsets", "DescribeConfigs", "DescribeCluster",
          "DescribeLogDirs", "DescribeQuorum", "UpdateFeatures")
_PATCHES = {"DescribeTopicPartitionsRequest": _describe_topic_partitions_request,
            "DescribeTopicPartitionsResponse": _describe_topic_partitions_response,
            "ListOffsetsRequest": _list_offsets_request}


_DECLARING = threading.Lock()           # the embedded broker's thread and a client may both ask first


def _declare(api: str) -> None:
    with _DECLARING:
        if f"{api}Response" in globals():
            return
        kwds = {"load_json": _schemas} if api in _OWN_SCHEMAS else {}
        for name in (f"{api}Request", f"{api}Response"):
            body: dict[str, object] = {"__module__": __name__, "__qualname__": name}
            if name in _PATCHES:
                body["json_patch"] = classmethod(lambda cls, json, patch=_PATCHES[name]: patch(json))
            globals()[name] = types.new_class(name, (ApiMessage,), kwds, lambda ns: ns.update(body))


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
    copies = {f"{api}{kind}" for api in _STOCK for kind in ("Request", "Response")}

    def rank(cls) -> int:
        """kcli's own classes (the KIPs') over kafka-python's, and its over kcli's copies of them
        (_STOCK, declared as the client first sends one: without kafka-python's json_patch
        renames, which the broker's handlers use)."""
        if cls.__module__ != __name__:
            return 1
        return 0 if cls.__name__ in copies else 2

    def walk(cls):
        for sub in cls.__subclasses__():
            if getattr(sub, "_class_version", None) is None and getattr(sub, "_json", None):
                table = requests if sub.type == "request" else responses
                held = table.get(sub.API_KEY)
                if held is None or rank(sub) > rank(held) or rank(sub) == rank(held) == 2:
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
    *(f"{api}{kind}" for api in SHARE_APIS for kind in ("Request", "Response")),
    *(f"{api}{kind}" for api in UNREGISTER_APIS for kind in ("Request", "Response")),
    *(f"{api}{kind}" for api in _STOCK for kind in ("Request", "Response")),
]

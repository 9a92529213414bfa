"""kafka-delete-records' command line (Apache Kafka 4.4's DeleteRecordsCommand): its options, help
texts and checks in the tool's order. Pure."""

from __future__ import annotations

from kcli.cli.dropin.common import HELP, VERSION, Usage, start
from kcli.cli.dropin.jopt import REQUIRED, JoptError, Opt
from kcli.datatypes import datatype

USAGE_TEXT = "This tool helps to delete records of the given partitions down to the specified offset."
OPTIONS = [
    Opt("bootstrap-server", "REQUIRED: The server to connect to.", REQUIRED,
        describe="server(s) to use for bootstrapping"),
    Opt("offset-json-file", 'REQUIRED: The JSON file with offset per partition. The format to use is:\n'
        '{"partitions":\n  [{"topic": "foo", "partition": 1, "offset": 1}],\n "version":1\n}', REQUIRED,
        describe="Offset json file path"),
    Opt("command-config", "A property file containing configs to be passed to Admin Client.", REQUIRED,
        describe="command config property file path"),
    HELP, VERSION,
]


@datatype
class RecordsRequest:
    bootstrap: str
    offset_file: str
    command_config: str | None


def read(args: list[str]) -> RecordsRequest:
    parsed = start(OPTIONS, args, USAGE_TEXT)
    for name in ("bootstrap-server", "offset-json-file"):     # CommandLineUtils.checkRequiredArgs
        if not parsed.has(name):
            raise Usage(f'Missing required argument "[{name}]"')
    try:
        return RecordsRequest(parsed.value("bootstrap-server"), parsed.value("offset-json-file"),
                              parsed.value("command-config"))
    except JoptError as exc:
        raise Usage(str(exc)) from None


def _node(value) -> str:
    """A JSON value as Jackson's JsonNode.toString() prints it in DecodeJson's messages."""
    import json

    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _field(obj: dict, name: str):
    if name not in obj:
        raise Usage(f"No such field exists: `{name}`")
    return obj[name]


def _integer(value, kind: str, lo: int, hi: int) -> int:
    """DecodeJson's Integer (a JSON integer within int32) or Long (within int64)."""
    if type(value) is not int or not lo <= value <= hi:
        raise Usage(f"Expected `{kind}` value, received {_node(value)}")
    return value


def _object(value) -> dict:
    if not isinstance(value, dict):
        raise Usage(f"Expected JSON object, received {_node(value)}")
    return value


def parse_offsets(text: str) -> list[tuple[str, int, int]]:
    """The offset JSON file read as DeleteRecordsCommand reads it (``version`` 1 only, the
    default; extra fields ignored), each refusal in its words; duplicates are the caller's."""
    import json

    try:
        doc = json.loads(text)
    except (ValueError, RecursionError):
        raise Usage("The input string is not a valid JSON") from None
    version = _object(doc).get("version", 1)
    if _integer(version, "Integer", -2**31, 2**31 - 1) != 1:
        raise Usage(f"Not supported version field value {version}")
    if "partitions" not in doc:
        raise Usage("Missing partitions field")
    partitions = doc["partitions"]
    if not isinstance(partitions, list):
        raise Usage(f"Expected JSON array, received {_node(partitions)}")
    entries = []
    for item in partitions:
        p = _object(item)
        topic = _field(p, "topic")
        if not isinstance(topic, str):
            raise Usage(f"Expected `String` value, received {_node(topic)}")
        entries.append((topic, _integer(_field(p, "partition"), "Integer", -2**31, 2**31 - 1),
                        _integer(_field(p, "offset"), "Long", -2**63, 2**63 - 1)))
    return entries

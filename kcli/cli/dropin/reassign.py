"""kafka-reassign-partitions' command line (Apache Kafka 4.4's ReassignPartitionsCommand): its
options, help texts and checks in the tool's order, and its JSON files read as the tool reads
them (Kafka's DecodeJson words). Pure."""

from __future__ import annotations

from kcli.cli.dropin.common import HELP, VERSION, Usage, start
from kcli.cli.dropin.jopt import OPTIONAL, REQUIRED, JoptError, Opt
from kcli.datatypes import datatype

USAGE_TEXT = "This tool helps to move topic partitions between replicas."
_THROTTLE = ("This option can be included with --execute when a reassignment is started, and it can be altered by "
             "resubmitting the current reassignment along with the --additional flag. The throttle rate should be "
             "at least 1 KB/s.")
OPTIONS = [
    Opt("verify", "Verify if the reassignment completed as specified by the --reassignment-json-file option. If "
        "there is a throttle engaged for the replicas specified, and the rebalance has completed, the throttle will "
        "be removed"),
    Opt("generate", "Generate a candidate partition reassignment configuration. Note that this only generates a "
        "candidate assignment, it does not execute it."),
    Opt("execute", "Kick off the reassignment as specified by the --reassignment-json-file option."),
    Opt("cancel", "Cancel an active reassignment."),
    Opt("list", "List all active partition reassignments."),
    Opt("bootstrap-server", "the server(s) to use for bootstrapping.", OPTIONAL,
        describe="Server(s) to use for bootstrapping"),
    Opt("command-config", "Property file containing configs to be passed to Admin Client.", REQUIRED,
        describe="Admin client property file"),
    Opt("reassignment-json-file", 'The JSON file with the partition reassignment configurationThe format to use '
        'is - \n{"partitions":\n\t[{"topic": "foo",\n\t  "partition": 1,\n\t  "replicas": [1,2,3],\n\t  '
        '"log_dirs": ["dir1","dir2","dir3"] }],\n"version":1\n}\nNote that "log_dirs" is optional. When it is '
        "specified, its length must equal the length of the replicas list. The value in this list can be either "
        '"any" or the absolution path of the log directory on the broker. If absolute log directory path is '
        "specified, the replica will be moved to the specified log directory on the broker.", REQUIRED,
        describe="manual assignment json file path"),
    Opt("topics-to-move-json-file", "Generate a reassignment configuration to move the partitions of the "
        "specified topics to the list of brokers specified by the --broker-list option. The format to use is - \n"
        '{"topics":\n\t[{"topic": "foo"},{"topic": "foo1"}],\n"version":1\n}', REQUIRED,
        describe="topics to reassign json file path"),
    Opt("broker-list", 'The list of brokers to which the partitions need to be reassigned in the form "0,1,2". '
        "This is required if --topics-to-move-json-file is used to generate reassignment configuration", REQUIRED,
        describe="brokerlist"),
    Opt("bootstrap-controller", "The controller to use for reassignment. By default, the tool will get the quorum "
        "controller. This option supports the actions --cancel and --list.", OPTIONAL,
        describe="bootstrap controller to connect to"),
    Opt("disable-rack-aware", "Disable rack aware replica assignment"),
    Opt("throttle", "The movement of partitions between brokers will be throttled to this value (bytes/sec). "
        + _THROTTLE, REQUIRED, type="Long", describe="throttle", default="-1"),
    Opt("replica-alter-log-dirs-throttle", "The movement of replicas between log directories on the same broker "
        "will be throttled to this value (bytes/sec). " + _THROTTLE, REQUIRED, type="Long",
        describe="replicaAlterLogDirsThrottle", default="-1"),
    Opt("timeout", "The maximum time in ms to wait for log directory replica assignment to begin.", REQUIRED,
        type="Long", describe="timeout", default="10000"),
    Opt("additional", "Execute this reassignment in addition to any other ongoing ones. This option can also be "
        "used to change the throttle of an ongoing reassignment."),
    Opt("preserve-throttles", "Do not modify broker or topic throttles."),
    Opt("disallow-replication-factor-change", "Denies the ability to change a partition's replication factor as "
        "part of this reassignment through adding validation against it."),
    HELP, VERSION,
]
ACTIONS = ("generate", "execute", "verify", "cancel", "list")
REQUIRED_ARGS = {"verify": ("reassignment-json-file",), "generate": ("topics-to-move-json-file", "broker-list"),
                 "execute": ("reassignment-json-file",), "cancel": ("reassignment-json-file",), "list": ()}
PERMITTED = {
    "verify": ("bootstrap-server", "command-config", "preserve-throttles"),
    "generate": ("bootstrap-server", "broker-list", "command-config", "disable-rack-aware"),
    "execute": ("additional", "bootstrap-server", "command-config", "throttle", "replica-alter-log-dirs-throttle",
                "timeout", "disallow-replication-factor-change"),
    "cancel": ("bootstrap-server", "command-config", "preserve-throttles", "timeout"),
    "list": ("bootstrap-server", "command-config"),
}


@datatype
class ReassignRequest:
    action: str
    bootstrap: str | None
    command_config: str | None
    json_file: str | None             # --reassignment-json-file, or --generate's --topics-to-move-json-file
    broker_list: str | None
    throttle: int
    log_dir_throttle: int
    additional: bool
    preserve_throttles: bool
    rack_aware: bool
    allow_rf_change: bool


def read(args: list[str]) -> ReassignRequest:
    """ReassignPartitionsCommand.validateAndParseArgs: the action, the bootstrap, each action's
    required and permitted options, in its order and words."""
    parsed = start(OPTIONS, args, USAGE_TEXT)
    has = parsed.has
    actions = [a for a in ACTIONS if has(a)]
    if len(actions) != 1:
        raise Usage("Command must include exactly one action: " + ", ".join(f"--{a}" for a in ACTIONS))
    action = actions[0]
    if has("bootstrap-server") and has("bootstrap-controller"):
        raise Usage("Please don't specify both --bootstrap-server and --bootstrap-controller")
    if not has("bootstrap-server") and not has("bootstrap-controller"):
        raise Usage("Please specify either --bootstrap-server or --bootstrap-controller")
    for name in REQUIRED_ARGS[action]:                      # CommandLineUtils.checkRequiredArgs
        if not has(name):
            raise Usage(f'Missing required argument "[{name}]"')
    permitted = {*REQUIRED_ARGS[action], *PERMITTED[action]}
    if action in ("cancel", "list") and has("bootstrap-controller"):
        permitted = (permitted - {"bootstrap-server"}) | {"bootstrap-controller"}
    for name in dict.fromkeys(parsed.order):
        if name != action and name not in permitted:
            raise Usage(f'Option "[{name}]" can\'t be used with action "[{action}]"')
    if has("bootstrap-controller"):
        raise Usage("kcli kafka-reassign-partitions connects to brokers: use --bootstrap-server")
    if parsed.raw("bootstrap-server") is None:          # the tool fails on it (a NullPointerException)
        raise Usage("--bootstrap-server needs host:port")
    try:                        # the tool converts its numbers as it runs: its Error: line on stdout
        throttle, log_dir_throttle = parsed.value("throttle"), parsed.value("replica-alter-log-dirs-throttle")
        parsed.value("timeout")
    except JoptError as exc:
        raise Usage(f"Error: {exc}", stream="stdout") from None
    try:
        file_option = "topics-to-move-json-file" if action == "generate" else "reassignment-json-file"
        return ReassignRequest(action, parsed.value("bootstrap-server"), parsed.value("command-config"),
                               parsed.value(file_option), parsed.value("broker-list"), throttle, log_dir_throttle,
                               has("additional"), has("preserve-throttles"), not has("disable-rack-aware"),
                               not has("disallow-replication-factor-change"))
    except JoptError as exc:
        raise Usage(str(exc)) from None


# -- the JSON files, as Kafka's Json and DecodeJson read them --------------------------------------

class JsonError(Exception):
    """A file the tool refuses (``message``: its exception's text, after ``Error: ``)."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


ANY_LOG_DIR = "any"


def _node(value) -> str:
    import json

    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _object(value) -> dict:
    if not isinstance(value, dict):
        raise JsonError(f"Expected JSON object, received {_node(value)}")
    return value


def _array(value) -> list:
    if not isinstance(value, list):
        raise JsonError(f"Expected JSON array, received {_node(value)}")
    return value


def _field(obj: dict, name: str):
    if name not in obj:
        raise JsonError(f"No such field exists: `{name}`")
    return obj[name]


def _int(value) -> int:
    if type(value) is not int or not -2**31 <= value < 2**31:
        raise JsonError(f"Expected `Integer` value, received {_node(value)}")
    return value


def _string(value) -> str:
    if not isinstance(value, str):
        raise JsonError(f"Expected `String` value, received {_node(value)}")
    return value


def _parse(text: str, invalid: str | None) -> dict:
    """The file's JSON object and its version (1); ``invalid``: the tool's words for text that is
    not JSON (None: Jackson's parser message, which kcli gives as Python's parser words it)."""
    import json

    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise JsonError(invalid or f"{exc.msg}: line {exc.lineno}, column {exc.colno}") from None
    except (ValueError, RecursionError):
        raise JsonError(invalid or "The input is not valid JSON") from None
    doc = _object(doc)
    version = _int(doc["version"]) if "version" in doc else 1
    if version != 1:
        raise JsonError(f"Not supported version field value {version}")
    return doc


def parse_topics(text: str) -> list[str]:
    """parseTopicsData: the topics of a --topics-to-move-json-file, in the file's order."""
    doc = _parse(text, "The input string is not a valid JSON")
    return [_string(_field(_object(t), "topic")) for t in _array(doc["topics"])] if "topics" in doc else []


def parse_reassignment(text: str) -> tuple[list[tuple[tuple[str, int], list[int]]], dict[tuple[str, int, int], str]]:
    """parsePartitionReassignmentData: the partitions with their target replicas, in the file's
    order and not deduplicated; the log dirs named (not "any") per (topic, partition, broker)."""
    doc = _parse(text, None)
    parts, dirs = [], {}
    for entry in _array(doc["partitions"]) if "partitions" in doc else []:
        fields = _object(entry)
        topic = _string(_field(fields, "topic"))
        partition = _int(_field(fields, "partition"))
        replicas = [_int(r) for r in _array(_field(fields, "replicas"))]
        log_dirs = ([_string(d) for d in _array(fields["log_dirs"])] if "log_dirs" in fields
                    else [ANY_LOG_DIR] * len(replicas))
        if len(replicas) != len(log_dirs):
            raise JsonError(f"Size of replicas list {_list(replicas)} is different from size of log dirs list "
                            f"{_list(log_dirs)} for partition {topic}-{partition}")
        parts.append(((topic, partition), replicas))
        for replica, log_dir in zip(replicas, log_dirs):
            if log_dir != ANY_LOG_DIR:
                dirs[(topic, partition, replica)] = log_dir
    return parts, dirs


def _list(items: list) -> str:
    """A Java List's toString."""
    return "[" + ", ".join(map(str, items)) + "]"


def check_execute(parts: list[tuple[tuple[str, int], list[int]]]) -> dict[tuple[str, int], list[int]]:
    """parseExecuteAssignmentArgs' checks, in its order and words: the plan as a map."""
    from kcli import javaorder

    if not parts:
        raise JsonError("Partition reassignment list cannot be empty")
    if any(not replicas for _, replicas in parts):
        raise JsonError("Partition replica list cannot be empty")
    seen, duplicates = set(), []
    for tp, _ in parts:
        if tp in seen:
            duplicates.append(tp)
        seen.add(tp)
    if duplicates:
        shown = ",".join(f"{t}-{p}" for t, p in javaorder.topic_partitions(dict.fromkeys(duplicates)))
        raise JsonError(f"Partition reassignment contains duplicate topic partitions: {shown}")
    repeated = [(tp, [r for r in javaorder.integers(dict.fromkeys(replicas)) if replicas.count(r) > 1])
                for tp, replicas in parts]
    repeated = [(tp, rs) for tp, rs in repeated if rs]
    if repeated:
        shown = ". ".join(f"{t}-{p} contains multiple entries for {','.join(map(str, rs))}" for (t, p), rs in repeated)
        raise JsonError(f"Partition replica lists may not contain duplicate entries: {shown}")
    return dict(parts)


def parse_broker_list(text: str) -> list[int]:
    """parseGenerateAssignmentArgs' broker list: String.split(",") and Integer.parseInt."""
    from kcli.cli.dropin.jopt import java_integer
    from kcli.inputs import printable

    pieces = text.split(",")
    while text and pieces and pieces[-1] == "":             # Java's split drops trailing empties
        pieces.pop()
    brokers = []
    for piece in pieces:
        number = java_integer(piece, "Integer")
        if number is None:
            raise JsonError(f'For input string: "{printable(piece)}"')
        brokers.append(number)
    return brokers

"""kafka-get-offsets' command line (Apache Kafka 4.4's GetOffsetShell): its options, help texts
and checks in the tool's order. Pure."""

from __future__ import annotations

import re

from kcli.cli.dropin import jopt
from kcli.cli.dropin.common import HELP, VERSION, Usage, start
from kcli.cli.dropin.jopt import REQUIRED, Opt
from kcli.datatypes import datatype

USAGE_TEXT = "An interactive shell for getting topic-partition offsets."
_PATTERN = "([^:,]*)(?::(?:([0-9]*)|(?:([0-9]*)-([0-9]*))))?"
OPTIONS = [
    Opt("bootstrap-server", "REQUIRED. The server(s) to connect to in the form HOST1:PORT1,HOST2:PORT2.",
        REQUIRED, describe="HOST1:PORT1,...,HOST3:PORT3"),
    Opt("topic-partitions", f"Comma separated list of topic-partition patterns to get the offsets for, with "
        f"the format of '{_PATTERN}'. The first group is an optional regex for the topic name, if omitted, it "
        "matches any topic name. The section after ':' describes a 'partition' pattern, which can be: a "
        "number, a range in the format of 'NUMBER-NUMBER' (lower inclusive, upper exclusive), an inclusive "
        "lower bound in the format of 'NUMBER-', an exclusive upper bound in the format of '-NUMBER' or may "
        "be omitted to accept all partitions.", REQUIRED,
        describe="topic1:1,topic2:0-3,topic3,topic4:5-,topic5:-3"),
    Opt("topic", "The topic to get the offsets for. It also accepts a regular expression. If not present, "
        "all authorized topics are queried. Cannot be used if --topic-partitions is present.", REQUIRED,
        describe="topic"),
    Opt("partitions", "Comma separated list of partition ids to get the offsets for. If not present, all "
        "partitions of the authorized topics are queried. Cannot be used if --topic-partitions is present.",
        REQUIRED, describe="partition ids"),
    Opt("time", "timestamp of the offsets before that. [Note: No offset is returned, if the timestamp "
        "greater than recently committed record timestamp is given.]", REQUIRED,
        describe="<timestamp> / -1 or latest / -2 or earliest / -3 or max-timestamp / -4 or earliest-local "
        "/ -5 or latest-tiered / -6 or earliest-pending-upload", default="latest"),
    Opt("command-config", "Property file containing configs to be passed to Admin Client.", REQUIRED,
        describe="config file"),
    Opt("exclude-internal-topics", "By default, internal topics are included. If specified, internal topics "
        "are excluded."),
    HELP, VERSION,
]
# ToolsUtils.validateBootstrapServer: every comma-separated item is host:port.
_HOST_PORT = re.compile(r".+:\d+")
BAD_BOOTSTRAP = "Please provide valid host:port like host1:9091,host2:9092"


@datatype
class OffsetsRequest:
    parsed: jopt.Parsed
    bootstrap: str


def read(args: list[str]) -> OffsetsRequest:
    parsed = start(OPTIONS, args, USAGE_TEXT, error_prefix="Error occurred: ")
    if not parsed.has("bootstrap-server"):
        raise Usage('Missing required argument "[bootstrap-server]"')
    try:
        bootstrap = parsed.value("bootstrap-server")
        for name in ("topic-partitions", "topic", "partitions", "time", "command-config"):
            parsed.value(name)
    except jopt.JoptError as exc:
        raise Usage(f"Error occurred: {exc}") from None
    if not bootstrap or not all(_HOST_PORT.fullmatch(s.strip()) for s in bootstrap.split(",")):
        raise Usage(BAD_BOOTSTRAP)
    return OffsetsRequest(parsed, bootstrap)

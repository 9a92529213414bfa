"""kafka-log-dirs' command line (Apache Kafka 4.4's LogDirsCommand): its options, help texts and
checks in the tool's order. Pure."""

from __future__ import annotations

import re

from kcli.cli.dropin.common import HELP, VERSION, Usage, start
from kcli.cli.dropin.jopt import REQUIRED, JoptError, Opt
from kcli.datatypes import datatype
from kcli.inputs import printable

USAGE_TEXT = "This tool helps to query log directory usage on the specified brokers."
OPTIONS = [
    HELP, VERSION,
    Opt("bootstrap-server", "REQUIRED: the server(s) to use for bootstrapping", REQUIRED,
        describe="The server(s) to use for bootstrapping"),
    Opt("command-config", "Property file containing configs to be passed to Admin Client.", REQUIRED,
        describe="Admin client property file"),
    Opt("describe", "Describe the specified log directories on the specified brokers."),
    Opt("topic-list", 'The list of topics to be queried in the form "topic1,topic2,topic3". All topics will be '
        "queried if no topic list is specified", REQUIRED, describe="Topic list", default=""),
    Opt("broker-list", 'The list of brokers to be queried in the form "0,1,2". All brokers in the cluster will be '
        "queried if no broker list is specified", REQUIRED, describe="Broker list", default=""),
]
_INTEGER = re.compile(r"[+-]?[0-9]+")


@datatype
class LogDirsRequest:
    bootstrap: str
    command_config: str | None
    topics: list[str]
    brokers: list[int]


def _items(text: str) -> list[str]:
    """splitAtCommasAndFilterOutEmpty: the comma-separated items, empty ones left out."""
    return list(dict.fromkeys(x for x in text.split(",") if x))


def _broker(text: str) -> int:
    """Integer.valueOf: a decimal int32, else NumberFormatException's message (the tool reads
    the list after its first request; the drop-in refuses it before any)."""
    digits = text.lstrip("+-").lstrip("0")
    if not _INTEGER.fullmatch(text) or len(digits) > 10 or not -2**31 <= int(text) < 2**31:
        raise Usage(f'For input string: "{printable(text)}"')
    return int(text)


def read(args: list[str]) -> LogDirsRequest:
    parsed = start(OPTIONS, args, USAGE_TEXT)
    for name in ("bootstrap-server", "describe"):     # CommandLineUtils.checkRequiredArgs
        if not parsed.has(name):
            raise Usage(f'Missing required argument "[{name}]"')
    try:
        topics, brokers = parsed.value("topic-list"), parsed.value("broker-list")
        request = LogDirsRequest(parsed.value("bootstrap-server"), parsed.value("command-config"), [], [])
    except JoptError as exc:
        raise Usage(str(exc)) from None
    request.topics = _items(topics or "")
    request.brokers = list(dict.fromkeys(_broker(b) for b in _items(brokers or "")))
    return request

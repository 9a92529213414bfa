"""Command-line rewriting before Typer parses it. Global options may be typed anywhere on the
line, as with the Kafka tools (``kcli describe topics orders -b host:9092``): they are moved in
front of the command. And options whose value is optional, as joptsimple allows
(``kafka-consumer-groups --list --state``), get an empty value when none follows: Typer has no
optional option values."""

from __future__ import annotations

from kcli.errors import UsageError

TYPE_CHECKING = False                 # typing's, without importing typing (start-up)
if TYPE_CHECKING:
    from typing import Mapping

WITH_VALUE = ("-b", "--bootstrap-server", "--command-config", "-o", "--output", "--timeout", "--profile")
FLAGS = ("--verbose",)
NOT_EMPTY = ("bootstrap-server", "command-config", "profile")


def check_not_empty(given: Mapping[str, object]) -> None:
    """The rule for the global options of every command line, native and drop-in: a server list,
    a properties file or a profile given empty (or blank) is refused, not ignored."""
    for name in NOT_EMPTY:
        value = given.get(name)
        if value is not None and not str(value).strip():
            raise UsageError(f"--{name} needs a value")


def leading(argv: list[str]) -> tuple[list[str], list[str]]:
    """The global options at the start of a command line, and the rest from the first other
    word on (``kcli --profile prod kafka-topics --list``: a drop-in's line starts there)."""
    i = 0
    while i < len(argv):
        arg = argv[i]
        name = arg.split("=", 1)[0] if arg.startswith("--") else arg
        if name in WITH_VALUE:
            i += 1 if "=" in arg else 2
        elif arg in FLAGS:
            i += 1
        else:
            break
    return argv[:i], argv[i:]


def values(options: list[str]) -> dict[str, str | bool]:
    """Global options (as ``leading`` returns them) by their long name, without dashes: the last
    of each wins, as on the native command lines. A value-less option at the end has none."""
    short = {"-b": "bootstrap-server", "-o": "output"}
    found: dict[str, str | bool] = {}
    i = 0
    while i < len(options):
        arg = options[i]
        name, eq, value = arg.partition("=") if arg.startswith("--") else (arg, "", "")
        key = short.get(name, name.lstrip("-"))
        if name in FLAGS:
            found[key] = True
        elif eq:
            found[key] = value
        elif i + 1 < len(options):
            found[key] = options[i + 1]
            i += 1
        i += 1
    return found


def hoist(argv: list[str]) -> list[str]:
    front: list[str] = []
    rest: list[str] = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            rest.extend(argv[i:])
            break
        name = arg.split("=", 1)[0] if arg.startswith("--") else arg
        if name in WITH_VALUE:
            if "=" in arg or i + 1 >= len(argv):
                front.append(arg)
            else:
                front.extend(argv[i:i + 2])
                i += 1
        elif arg in FLAGS:
            front.append(arg)
        else:
            rest.append(arg)
        i += 1
    return front + rest


# Options that may be given without a value, per command path: an empty value then means "show
# the column, filter nothing" (kafka-consumer-groups --list --state / --type); kcli lag's
# --watch: its default interval.
OPTIONAL_VALUE: dict[tuple[str, ...], tuple[str, ...]] = {("list", "groups"): ("--state", "--type"),
                                                          ("lag", "show"): ("--watch",)}


def fill_optional_values(args: list[str], words: list[str]) -> list[str]:
    options = OPTIONAL_VALUE.get(tuple(words), ())
    out: list[str] = []
    for i, arg in enumerate(args):
        out.append(arg)
        if arg in options and (i + 1 == len(args) or args[i + 1].startswith("-")):
            out.append("")
    return out

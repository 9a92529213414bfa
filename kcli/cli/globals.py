"""Global options may be typed anywhere on the command line, as with the Kafka tools
(``kcli describe topics orders -b host:9092``): they are moved in front of the command before
Typer parses the arguments."""

from __future__ import annotations

WITH_VALUE = ("-b", "--bootstrap-server", "--command-config", "-o", "--output", "--timeout", "--profile")
FLAGS = ("--verbose",)


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

"""What the fuzz tests share (tests/inputs/test_fuzz_parsers.py, tests/cli/test_fuzz_cli.py): the
example counts, input generators and the report.

KCLI_FUZZ_EXAMPLES sets the inputs per parser (3,000 by default, as CI runs them: hypothesis
draws new ones each run, so every landing adds its own; 5,000 took about 2 minutes more of a
loaded suite run);
KCLI_FUZZ_REPORT=path writes, per parser, the inputs tried, the exit codes they map to (0 read,
2 refused; for the CLI, the codes seen) and the longest time one input took, as JSON (a record,
never a bound: tests count work instead, tests/support/work.py)."""

from __future__ import annotations

import json
import os
from collections import defaultdict
from pathlib import Path

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

EXAMPLES = int(os.environ.get("KCLI_FUZZ_EXAMPLES", "3000"))
LONGEST = 20_000           # characters of a repeated input: the quadratic parsers found took seconds there
FUZZ = settings(max_examples=EXAMPLES, deadline=None, database=None,
                suppress_health_check=list(HealthCheck))
# Well-formed values built from known parts: fewer, they check the reading, not the refusing.
BUILT = settings(FUZZ, max_examples=max(1, EXAMPLES // 10))


class Stats:
    """Per parser: inputs, exit codes, the longest time for one input."""

    def __init__(self):
        self.table = defaultdict(lambda: {"inputs": 0, "exit_codes": defaultdict(int), "max_seconds": 0.0})

    def record(self, name: str, code: int, seconds: float) -> None:
        row = self.table[name]
        row["inputs"] += 1
        row["exit_codes"][str(code)] += 1
        row["max_seconds"] = max(row["max_seconds"], seconds)

    def write(self) -> None:
        path = os.environ.get("KCLI_FUZZ_REPORT")
        if path:
            report = json.loads(Path(path).read_text()) if Path(path).is_file() else {}
            report.update(self.table)
            Path(path).write_text(json.dumps(report, indent=2, sort_keys=True) + "\n")


def text_from(data: bytes, pieces: list[str]) -> str:
    """One input from hypothesis' bytes (one draw: a tenth of the cost of composed strategies).
    The first byte picks the form: any characters (bytes below 0xf0 are Latin-1 characters,
    control characters included; 0xf0 and above start a 3-byte code point anywhere in Unicode);
    a run of the grammar's pieces; or up to two pieces, then one piece repeated up to 20,000 times
    (LONGEST characters at most), then up to two pieces: where a parser that backtracks or
    concatenates shows its quadratic time."""
    if not data:
        return ""
    mode, rest = data[0] % 3, data[1:]
    if mode == 0:
        chars, i = [], 0
        while i < len(rest):
            if rest[i] < 0xF0:
                chars.append(chr(rest[i]))
                i += 1
            else:
                code = int.from_bytes(rest[i + 1:i + 4], "big") % 0x110000
                chars.append(chr(code) if not 0xD800 <= code <= 0xDFFF else "\ufffd")
                i += 4
        return "".join(chars)
    if mode == 1:
        return "".join(pieces[b % len(pieces)] for b in rest)
    prefix, unit, suffix = ("".join(pieces[b % len(pieces)] for b in part)
                            for part in (rest[2:4], rest[4:5], rest[5:7]))
    unit = unit or pieces[0]
    count = min(int.from_bytes(rest[:2], "big") % 20_000 + 1, LONGEST // len(unit) + 1)
    return prefix + unit * count + suffix


def text_with(pieces: list[str]):
    return st.binary(max_size=40).map(lambda data: text_from(data, pieces))


def file_bytes(pieces: list[str]):
    """Raw bytes (a file in any encoding) or the UTF-8 of a text as above."""
    return st.binary(max_size=60).map(
        lambda data: data[1:] if data and data[0] % 4 == 0 else text_from(data, pieces).encode())

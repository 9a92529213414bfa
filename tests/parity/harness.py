"""The parity harness: one operator command run through Apache's Java tool and through kcli on
the same cluster state, compared stream by stream (stdout, stderr, exit code).

A case names its Java command line and kcli's (``-o plain`` is added), with ``{placeholders}``
the corpus fills in (bootstrap server, topic and group names). A drop-in case runs the Java
command line itself through kcli (``kcli kafka-topics ...``, the same words). Mutating commands name a
``prepare`` step that puts the cluster back into the same state before each tool runs.

Every difference is one of a few kinds; a case declares the differences it is known to have,
each with the reason (a key of ``REASONS``). A difference nobody declared, or a declared one that
did not happen, is a finding. ``table()`` and ``dropin_table()`` render the declared differences as the parity tables of
``docs/dropins.md`` (``DOCS``), so that page says exactly what the harness sees.
"""

from __future__ import annotations

import re
from pathlib import Path
from dataclasses import dataclass, field
from typing import Callable

from tests.support.apache_kafka import JavaResult, java_tool
from tests.support.run import Result, run_kcli

STDOUT, ORDER, STDERR, EXIT = "stdout", "stdout order", "stderr", "exit code"
DOCS = Path(__file__).resolve().parents[2] / "docs" / "dropins.md"   # the page with both tables
BEGIN, END = "<!-- parity-table:begin -->\n", "<!-- parity-table:end -->\n"       # the table's place
DROPIN_BEGIN, DROPIN_END = "<!-- dropin-table:begin -->\n", "<!-- dropin-table:end -->\n"

# Why kcli (native commands, -o plain) differs from the Java tool, where it does on purpose.
REASONS = {
    "honest-exit": "kcli exits 1 when the command failed; kafka-consumer-groups and kafka-streams-groups exit 0 after "
                   "most failures",
    "usage-exit": "kcli exits 2 on bad usage, before any request; the Java tools exit 1",
    "error-stream": "kcli prints errors as one line on stderr (`Error: ...`); the Java tool prints them on stdout",
    "error-line": "kcli prints one error line on stderr; the Java tool prints its usage text there",
    "error-prefix": "the same message; kcli's error lines start with `Error:`, kafka-get-offsets' with `Error "
                    "occurred:`",
    "failure-summary": "the same stdout; kcli adds one line on stderr saying how many items failed",
    "time-forms": "kcli's message lists the time forms it takes: ISO-8601 datetimes too",
    "log4j": "the Java tool logs the clamping warning through log4j (`[date] WARN ... (logger)`); kcli prints `Warn: "
             "...` without the log prefix",
    "dry-run-notice": "without --dry-run the Java tool warns on stderr that nothing will be executed; kcli's dry run "
                      "is its documented default",
    "kip-1282-column": "KIP-1282 adds GROUP-CREATION-TIME to --state --verbose; `-` where the broker has no "
                       "ConsumerGroupDescribe v2 (StreamsGroupDescribe v2 for a streams group; Kafka 4.4 and older)",
    "rollback-note": "kcli writes a rollback file before committing and names it on stderr",
    "replay-notice": "kcli warns on stderr, per group, how many records already read the reset moves back over",
    "skip-notice": "kcli warns on stderr, per partition, where the reset moves the committed offset past records the "
                   "group has not read",
    # the drop-in commands
    "stack-trace": "the Java tool prints a stack trace on stderr (or an ERROR log line with one); kcli prints none",
    "usage-text": "the same message on stderr; the Java tool prints its help table after it, kcli does not",
    "kip-1282-option": "--to-start-time is KIP-1282's: Kafka 4.4's tool does not know it; kcli prints the KIP's error "
                       "where the broker has no ConsumerGroupDescribe v2 (StreamsGroupDescribe v2 for a streams group; "
                       "Kafka 4.4 and older)",
    "kcli-notice": "kcli adds a notice on stderr (a group that does not exist yet would be created by --execute)",
    "version": "kcli prints its own version, not Kafka's",
    "stack-trace-stdout": "kafka-acls prints its stack trace on stdout after the error line; kcli prints the line "
                          "alone",
    "acl-lint": "kcli's ACL linter warns on stderr (`Warn: ...`) before any ACL is created; stdout is the Java tool's",
    "argparse-usage": "the same message on one line on stderr; the argparse4j tools (kafka-transactions, "
                      "kafka-cluster, kafka-metadata-quorum) print their usage before it and wrap it at 75 "
                      "columns (and may add a 'Did you "
                      "mean' list)",
    "trace-stdout": "kafka-reassign-partitions prints its stack trace on stdout after the `Error: ...` line; "
                    "kcli prints the line alone",
    "json-parser-message": "a reassignment file that is not JSON: the Java tool prints Jackson's parser message, "
                           "its location and a stack trace on stdout; kcli prints Python's parser message with the "
                           "line and column",
    "records-exit": "kcli exits 1 when no partition's records were deleted, 3 when only some were; "
                    "kafka-delete-records exits 0",
}

_STACK = re.compile(r"^(\s+at |\s+\.\.\. \d+ more|Caused by: )")
_LOG4J = re.compile(r"^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}\] ")


@dataclass(frozen=True)
class Case:
    id: str
    java: tuple[str, ...]                 # tool script name, then its arguments
    kcli: tuple[str, ...]                 # kcli's arguments (-o plain is added)
    differs: dict[str, str] = field(default_factory=dict)   # difference kind -> reason key
    prepare: str | None = None            # a step of the corpus, run before each tool
    dropin: bool = False                  # kcli runs the Java command line itself (kcli <tool> ...)
    # stdout compared through this, where the Java tool's order is not its own (kafka-acls prints
    # Java HashSets of enum-keyed records, whose order changes from one JVM to the next)
    canonical: Callable[[str], str] | None = None
    # the Java tool runs in a JVM of its own (java_tool), not a ToolSession's: ClusterTool's
    # argparse4j parseArgsOrFail ends its help and usage errors with System.exit, not Kafka's Exit
    own_jvm: bool = False

    def fill(self, values: dict[str, str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
        return (tuple(a.format(**values) for a in self.java),
                tuple(a.format(**values) for a in self.kcli))


@dataclass
class Outcome:
    case: Case
    java_args: tuple[str, ...]
    kcli_args: tuple[str, ...]
    java: JavaResult
    kcli: Result

    def differences(self) -> dict[str, str]:
        """kind -> a short description, for every stream that differs."""
        found = {}
        if self.case.canonical is not None:
            if self.case.canonical(self.java.out) != self.case.canonical(self.kcli.out):
                found[STDOUT] = _diff(self.case.canonical(self.java.out), self.case.canonical(self.kcli.out))
        elif self.java.out != self.kcli.out:
            same_lines = sorted(self.java.out.splitlines()) == sorted(self.kcli.out.splitlines())
            found[ORDER if same_lines else STDOUT] = _diff(self.java.out, self.kcli.out)
        if normal_stderr(self.java.err) != normal_stderr(self.kcli.err):
            found[STDERR] = _diff(normal_stderr(self.java.err), normal_stderr(self.kcli.err))
        if self.java.code != self.kcli.code:
            found[EXIT] = f"Java {self.java.code}, kcli {self.kcli.code}"
        return found

    def findings(self) -> list[str]:
        """What is wrong with this case: undeclared differences, and declared ones that did not
        happen (the table would lie)."""
        seen, declared = self.differences(), self.case.differs
        out = [f"{self.case.id}: undeclared {kind} difference: {detail}"
               for kind, detail in seen.items() if kind not in declared]
        out += [f"{self.case.id}: declared {kind} difference ({declared[kind]}) did not happen"
                for kind in declared if kind not in seen]
        return out


def normal_stderr(text: str) -> str:
    """The Java tool's stderr without stack frames and log4j timestamps (kept: the messages)."""
    lines = [_LOG4J.sub("[date] ", line) for line in text.splitlines() if not _STACK.match(line)]
    return "\n".join(lines)


def _diff(a: str, b: str) -> str:
    al, bl = a.splitlines(), b.splitlines()
    for i, (x, y) in enumerate(zip(al, bl)):
        if x != y:
            return f"line {i + 1}: Java {x!r} / kcli {y!r}"
    return f"Java {len(al)} lines / kcli {len(bl)} lines: {(al[len(bl):] or bl[len(al):])[:2]!r}"


def run_case(case: Case, values: dict[str, str], prepare: Callable[[str], None] | None = None,
             tools: Callable[..., JavaResult] = java_tool) -> Outcome:
    """``tools`` runs a Java tool (``java_tool``, or a ``ToolSession``'s ``run``)."""
    java_args, kcli_args = case.fill(values)
    if case.prepare and prepare:
        prepare(case.prepare)
    java = java_tool(*java_args) if case.own_jvm else tools(*java_args)
    if case.prepare and prepare:
        prepare(case.prepare)
    if case.dropin:
        kcli, kcli_args = run_dropin(java_args), java_args
    else:
        kcli = run_kcli(values["b"], "-o", "plain", *kcli_args, timeout="30s")
    return Outcome(case, java_args, kcli_args, java, kcli)


def run_dropin(args: tuple[str, ...]) -> Result:
    """``kcli <tool> <the Java tool's arguments>``, as the console script runs it."""
    import io

    from kcli.cli.main import run

    out, err = io.StringIO(), io.StringIO()
    code = run(list(args), out, err)
    return Result(code, out.getvalue(), err.getvalue())


def table(cases: list[Case]) -> str:
    """The parity table of the native commands (docs/dropins.md): one row per case that differs, a reason
    key per stream, then what each key means."""
    return _table([c for c in cases if not c.dropin], native=True)


def dropin_table(cases: list[Case]) -> str:
    """The table of the drop-in commands (docs/dropins.md) (the same command line through both)."""
    return _table([c for c in cases if c.dropin], native=False)


def _table(cases: list[Case], native: bool) -> str:
    kinds = (STDOUT, ORDER, STDERR, EXIT)
    used = [k for k in kinds if any(k in c.differs for c in cases)]
    head = "Java command / kcli command" if native else "command line (Java tool / `kcli` + the same words)"
    rows = [f"| {head} | " + " | ".join(used) + " |", "|---|" + "---|" * len(used)]
    for case in cases:
        if case.differs:
            java = " ".join(a for a in case.java if "{b}" not in a and a != "--bootstrap-server")
            cells = [f"`{case.differs[k]}`" if k in case.differs else "same" for k in used]
            shown = f"`{_generic(java)}`<br>`kcli {_generic(' '.join(case.kcli))}`" if native else f"`{_generic(java)}`"
            rows.append(f"| {shown} | " + " | ".join(cells) + " |")
    keys = sorted({r for c in cases for r in c.differs.values()})
    legend = [f"- `{key}`: {REASONS[key]}" for key in keys]
    return "\n".join(rows) + "\n\n" + "\n".join(legend) + "\n"


def _generic(text: str) -> str:
    """A command line as docs/dropins.md shows it: placeholders as plain names, pipes escaped."""
    return text.replace("{", "").replace("}", "").replace("|", "\\|")

"""A native command's warnings on stderr, summed up per kind: a big topic gives one warning per
partition (9,000 partitions, 9,000 lines), so each kind shows its first SHOWN warnings and then
one line with how many more there are and how to see them all (--verbose). The drop-ins print
every warning as the Java tools do; JSON documents carry them all.

``WORDS`` is kcli's wording of a reset's warnings (kcli.model.PlanWarning), the one place for it:
the native commands print these words; the drop-ins word the same values as the Java tools do
(kcli.cli.dropin.javawords) and never read these."""

from __future__ import annotations

from kcli.model import CLAMPED, MISSING_GROUP, NO_PLAN, NO_RECORD, REPLAYS, SKIPS_UNREAD, Notice, PlanWarning

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable


def _clamped(w: PlanWarning) -> str:
    above = w.asked is not None and w.new is not None and w.asked > w.new
    bound = "higher than latest" if above else "lower than earliest"
    return (f"New offset ({w.asked}) is {bound} offset for topic partition {w.topic}-{w.partition}. "
            f"Value will be set to {w.new}.")


def _missing_group(w: PlanWarning) -> str:
    if w.execute is None:
        return f"Group {w.group} does not exist: it has no committed offsets"
    return f"Group {w.group} does not exist: " + (
        "this reset creates it with these offsets (restoring the rollback file deletes it again)"
        if w.execute else "--execute creates it with these offsets")


WORDS: dict[str, Callable[[PlanWarning], str]] = {
    CLAMPED: _clamped,
    NO_RECORD: lambda w: (f"Partition {w.topic}-{w.partition}: no record at or after the time; the reset "
                          f"goes to the log end ({w.new})"),
    SKIPS_UNREAD: lambda w: (f"Group {w.group}, partition {w.topic}-{w.partition}: the new offset {w.new} "
                             f"skips {w.records} unread records (committed offset {w.current})"),
    REPLAYS: lambda w: (f"Group {w.group}: the reset replays {w.records} records already read on "
                        f"{w.partitions} partition(s)"),
    MISSING_GROUP: _missing_group,
    NO_PLAN: lambda w: f"No reset plan for group {w.group} found.",
}


def text(w: PlanWarning) -> str:
    """A reset's warning in kcli's words."""
    return WORDS[w.kind](w)


def notice(w: PlanWarning, scope: str = "") -> Notice:
    """A reset's warning as a native command shows it (``scope``: a --compare policy's label,
    which prefixes it)."""
    return Notice(w.kind, f"[{scope}] {text(w)}" if scope else text(w), scope)

SHOWN = 3
# What the notices of a kind are about, counted: "... and 8,996 more <these>".
WHAT = {CLAMPED: "partitions whose new offset is clamped to the log",
        NO_RECORD: "partitions without a record at or after the time (reset to the log end)",
        SKIPS_UNREAD: "partitions where the new offset skips unread records",
        REPLAYS: "groups that replay records",
        MISSING_GROUP: "groups that do not exist",
        NO_PLAN: "groups without a reset plan"}


def summary(notices: list[Notice], verbose: bool = False) -> list[str]:
    """The lines to print (without a prefix), kinds in the order they first appear: every notice
    with ``verbose`` or when a kind has at most SHOWN + 1; else the first SHOWN and a count."""
    kinds: dict[tuple[str, str], list[Notice]] = {}
    for n in notices:
        kinds.setdefault((n.kind, n.scope), []).append(n)
    lines = []
    for (kind, scope), items in kinds.items():
        if verbose or len(items) <= SHOWN + 1:
            lines += [n.text for n in items]
            continue
        lines += [n.text for n in items[:SHOWN]]
        about = WHAT.get(kind, "warnings like these")
        lines.append(f"{f'[{scope}] ' if scope else ''}... and {len(items) - SHOWN:,} more {about} "
                     f"({len(items):,} in all; --verbose lists each)")
    return lines

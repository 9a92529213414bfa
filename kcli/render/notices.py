"""A native command's warnings on stderr, summed up per kind: a big topic gives one warning per
partition (9,000 partitions, 9,000 lines), so each kind shows its first SHOWN warnings and then
one line with how many more there are and how to see them all (--verbose). The drop-ins print
every warning as the Java tools do; JSON documents carry them all."""

from __future__ import annotations

from kcli.model import CLAMPED, MISSING_GROUP, NO_PLAN, NO_RECORD, REPLAYS, SKIPS_UNREAD, Notice

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

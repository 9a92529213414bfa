"""kafka-features' views, as FeatureCommand prints them: describe's one line per supported
feature, and each update's outcome."""

from __future__ import annotations

from kcli.features import level_text
from kcli.model import FeatureLevels


def describe(f: FeatureLevels) -> str:
    """handleDescribe: the supported features by name, each with its range and finalized level
    (0 where none is finalized; metadata.version by its name) and the finalized epoch."""
    epoch = "-" if f.epoch is None else str(f.epoch)
    return "".join(
        f"Feature: {name:<40}  SupportedMinVersion: {level_text(name, lo):<15}  SupportedMaxVersion: "
        f"{level_text(name, hi):<15}  FinalizedVersionLevel: {level_text(name, f.finalized.get(name, 0)):<15}  "
        f"Epoch: {epoch}\n" for name, (lo, hi) in sorted(f.supported.items()))


def update_results(op: str, levels: dict[str, int], errors: dict[str, str | None], dry_run: bool) -> tuple[str, int]:
    """FeatureCommand.update's lines, by feature name, and how many failed."""
    lines, failed = [], 0
    for name in sorted(errors):
        error = errors[name]
        if error is not None:
            what = f"disable {name}" if op == "disable" else f"{op} {name} to {levels[name]}"
            lines.append(f"{'Can not' if dry_run else 'Could not'} {what}. {error}\n")
            failed += 1
        else:
            done = "disabled." if op == "disable" else f"{op}d to {levels[name]}."
            lines.append(f"{name}{' can be ' if dry_run else ' was '}{done}\n")
    return "".join(lines), failed

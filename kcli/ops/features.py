"""kafka-features' operations: the features a broker's ApiVersions names, and UpdateFeatures."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from kcli.admin import Admin
    from kcli.model import FeatureLevels


def describe(admin: Admin, node_id: int | None = None) -> FeatureLevels:
    return admin.describe_features(node_id)


def update(admin: Admin, updates: list[tuple[str, int, int]], validate_only: bool) -> dict[str, str | None]:
    """Each feature's error (None: updated, or would be with ``validate_only``): nothing is
    committed with ``validate_only`` (kafka-features --dry-run)."""
    return admin.update_features(updates, validate_only)

"""Kafka's feature versions (KIP-584, KIP-778, KIP-1022), as Apache Kafka 4.4.0 defines them: the
metadata.version levels and their names, each feature's levels, the level each takes at a
metadata.version (kafka-features version-mapping) and their dependencies (kafka-features
feature-dependencies). Pure data, read from the 4.4.0 tool's own answers; the embedded broker
supports and validates by it, kafka-features' drop-in prints by it."""

from __future__ import annotations

METADATA_VERSION = "metadata.version"
KRAFT_VERSION = "kraft.version"

# MetadataVersion's names in level order, from 3.3-IV3 (level 7, MINIMUM_VERSION) on; 4.5-IV0 is
# 4.4.0's unstable (testing) one
METADATA_VERSIONS = ("3.3-IV3", "3.4-IV0", "3.5-IV0", "3.5-IV1", "3.5-IV2", "3.6-IV0", "3.6-IV1", "3.6-IV2",
                     "3.7-IV0", "3.7-IV1", "3.7-IV2", "3.7-IV3", "3.7-IV4", "3.8-IV0", "3.9-IV0", "4.0-IV0",
                     "4.0-IV1", "4.0-IV2", "4.0-IV3", "4.1-IV0", "4.1-IV1", "4.2-IV0", "4.2-IV1", "4.3-IV0",
                     "4.4-IV0", "4.4-IV1", "4.4-IV2", "4.5-IV0")
MINIMUM_LEVEL = 7
LATEST_PRODUCTION = "4.4-IV2"
LATEST_PRODUCTION_LEVEL = MINIMUM_LEVEL + METADATA_VERSIONS.index(LATEST_PRODUCTION)
# Feature.PRODUCTION_FEATURES, in its order: the highest level each defines
FEATURE_MAX_LEVELS = {KRAFT_VERSION: 1, "transaction.version": 2, "group.version": 1,
                      "eligible.leader.replicas.version": 1, "share.version": 2, "streams.version": 1}
# the metadata.version levels from which each feature's default level rises (version-mapping)
DEFAULT_LEVEL_FROM = {KRAFT_VERSION: {21: 1}, "transaction.version": {24: 2}, "group.version": {22: 1},
                      "eligible.leader.replicas.version": {26: 1}, "share.version": {28: 1, 31: 2},
                      "streams.version": {29: 1}}
DEPENDENCIES: dict[tuple[str, int], dict[str, int]] = {
    ("eligible.leader.replicas.version", 1): {METADATA_VERSION: 23}}


def metadata_version_name(level: int) -> str | None:
    """MetadataVersion.fromFeatureLevel(level).version(), or None for no such level."""
    i = level - MINIMUM_LEVEL
    return METADATA_VERSIONS[i] if 0 <= i < len(METADATA_VERSIONS) else None


def metadata_version_level(text: str) -> int:
    """MetadataVersion.fromVersionString(text, true): a name (``4.4-IV2``), or a release
    (``4.4``: its latest production version; the first two dot-separated parts are read);
    ValueError with Kafka's message otherwise."""
    parts = text.split(".")
    key = text if len(parts) <= 2 else ".".join(parts[:2])
    levels = {name: MINIMUM_LEVEL + i for i, name in enumerate(METADATA_VERSIONS)}
    for name, level in list(levels.items()):
        if level <= LATEST_PRODUCTION_LEVEL:
            levels[name.split("-")[0]] = level             # a release: its latest production one
    if key not in levels:
        raise ValueError(f"Unknown metadata.version '{text}'. Supported metadata.version are: "
                         + ", ".join(METADATA_VERSIONS))
    return levels[key]


def default_level(feature: str, metadata_level: int) -> int:
    """Feature.defaultLevel: the level ``feature`` takes at metadata.version ``metadata_level``."""
    level = 0
    for since, value in DEFAULT_LEVEL_FROM[feature].items():
        if metadata_level >= since:
            level = value
    return level


def supported() -> dict[str, tuple[int, int]]:
    """What a 4.4 broker supports (ApiVersions' SupportedFeatures): production levels only."""
    return {METADATA_VERSION: (MINIMUM_LEVEL, LATEST_PRODUCTION_LEVEL),
            **{name: (0, top) for name, top in FEATURE_MAX_LEVELS.items()}}


def level_text(feature: str, level: int) -> str:
    """FeatureCommand.levelToString: metadata.version by its name (``UNKNOWN n`` for none)."""
    if feature == METADATA_VERSION:
        return metadata_version_name(level) or f"UNKNOWN {level}"
    return str(level)


def version_mapping(release: str | None) -> list[str]:
    """kafka-features version-mapping's lines: the release's metadata.version level, then each
    feature's level there (ValueError for an unknown release, in Kafka's words)."""
    text = release if release is not None else LATEST_PRODUCTION
    level = metadata_version_level(text)
    return [f"metadata.version={level} ({text})\n",
            *(f"{name}={default_level(name, level)}\n" for name in FEATURE_MAX_LEVELS)]


def dependency_lines(feature: str, level: int) -> list[str]:
    """kafka-features feature-dependencies' lines for one feature level (ValueError, in Kafka's
    words, for an unknown feature or level)."""
    if feature == METADATA_VERSION:
        name = metadata_version_name(level)
        if name is None:
            raise ValueError(f"Unknown metadata.version {level}")
        return [f"{feature}={level} ({name}) has no dependencies.\n"]
    if feature not in FEATURE_MAX_LEVELS:
        raise ValueError(f"Unknown feature: {feature}")
    if not 0 <= level <= FEATURE_MAX_LEVELS[feature]:
        raise ValueError(f"No feature:{feature} with feature level {level}")
    needs = DEPENDENCIES.get((feature, level), {})
    if not needs:
        return [f"{feature}={level} has no dependencies.\n"]
    return [f"{feature}={level} requires:\n", *(
        f"    {dep}={dep_level} ({metadata_version_name(dep_level)})\n" if dep == METADATA_VERSION
        else f"    {dep}={dep_level}\n" for dep, dep_level in needs.items())]

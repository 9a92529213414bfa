"""Start-offset policies: what a consumer does for a partition with no committed offset, and for
a position that is out of range.

``earliest`` and ``latest`` are librdkafka's own ``auto.offset.reset``. ``to_start_time``
(KIP-1282) and ``latest(max_age=D)`` (KIP-1327) need broker anchors, so librdkafka runs with
``auto.offset.reset=error`` and :class:`kcli.consumer.Consumer` positions the partitions itself.

| policy | no committed offset | out of range |
|---|---|---|
| earliest | log start | log start |
| latest | log end | log end |
| to_start_time | first record at/after the group creation time, else log end | the same |
| latest(max_age) | log start if 0 <= PartitionAgeMs <= max age, else log end | log end |

``new_partitions`` (accepted KIP-1327's ``auto.offset.reset.new.partitions``: earliest, latest or
``by_duration:D``) is applied instead, with earliest or latest as the policy, to partitions created
after the group (``kcli.consumer.anchors.BrokerAnchors.classify``); a partition that cannot be
proven either way takes whichever of the two starts earlier (none loses a record).
"""

from __future__ import annotations

from dataclasses import dataclass

from kcli.consumer.errors import ConfigurationError
from kcli.times import TimeParseError, parse_duration_ms

EARLIEST, LATEST, TO_START_TIME, BY_DURATION = "earliest", "latest", "to_start_time", "by_duration"
_ALIASES = {"earliest": EARLIEST, "smallest": EARLIEST, "beginning": EARLIEST,
            "latest": LATEST, "largest": LATEST, "end": LATEST, "to_start_time": TO_START_TIME}


@dataclass(frozen=True)
class StartPolicy:
    name: str
    max_age_ms: int = -1          # latest only; -1 = disabled (plain latest)
    duration_ms: int = -1         # by_duration only (a new_partitions policy)
    age_bounds: bool = False      # latest(max_age) only: without the broker's age, kcli's bounds decide
    new_partitions: "StartPolicy | None" = None     # accepted KIP-1327: for partitions created after the group

    @property
    def native(self) -> bool:
        """librdkafka's ``auto.offset.reset`` implements this policy exactly."""
        return self.name != TO_START_TIME and self.max_age_ms < 0 and self.new_partitions is None

    @property
    def needs_consumer_protocol(self) -> bool:
        return not self.native

    @property
    def librdkafka_reset(self) -> str:
        return self.name if self.native else "error"

    def __str__(self) -> str:
        text = (f"latest(max_age={self.max_age_ms}ms{', bounds' if self.age_bounds else ''})" if self.max_age_ms >= 0
                else f"by_duration({self.duration_ms}ms)" if self.name == BY_DURATION else self.name)
        return f"{text}, new_partitions={self.new_partitions}" if self.new_partitions else text


def earlier(a: StartPolicy, b: StartPolicy) -> StartPolicy:
    """Of two simple policies (earliest, latest, by_duration), the one that starts earlier."""
    def rank(p):
        return (0, 0) if p.name == EARLIEST else (2, 0) if p.name == LATEST else (1, -p.duration_ms)
    return min(a, b, key=rank)


def with_new_partitions(base: StartPolicy, value: StartPolicy | str | None) -> StartPolicy:
    """``base`` with a ``new_partitions`` policy: earliest, latest, or ``by_duration:D`` (D an
    ISO-8601 duration or a number with a unit, as ``auto.offset.reset=by_duration:PT1H``)."""
    if value is None:
        return base
    if base.name not in (EARLIEST, LATEST) or base.max_age_ms >= 0:
        raise ConfigurationError(f"new_partitions goes with earliest or latest, not {base}")
    if isinstance(value, StartPolicy):
        new = value
    else:
        text = str(value).strip()
        if text.lower().startswith(BY_DURATION + ":"):
            try:
                new = StartPolicy(BY_DURATION, duration_ms=parse_duration_ms(text.split(":", 1)[1].strip()))
            except TimeParseError as exc:
                raise ConfigurationError(f"Invalid new_partitions duration: {exc}") from None
        else:
            new = StartPolicy(_ALIASES.get(text.lower(), text))
    if new.name not in (EARLIEST, LATEST, BY_DURATION) or new.max_age_ms >= 0 or new.new_partitions:
        raise ConfigurationError(f"Invalid new_partitions policy {value!r}: use earliest, latest or by_duration:D")
    return StartPolicy(base.name, new_partitions=new)


def earliest() -> StartPolicy:
    return StartPolicy(EARLIEST)


def to_start_time() -> StartPolicy:
    return StartPolicy(TO_START_TIME)


def latest(max_age: int | str | None = None, *, bounds: bool = False) -> StartPolicy:
    """Plain ``latest``, or with ``max_age`` (milliseconds, or a duration such as ``"30s"`` or
    ``"PT5M"``) KIP-1327's rule: a partition younger than that starts at its beginning. ``-1``
    disables it, as ``auto.offset.reset.latest.max.age=-1``. Where the broker gives no age the KIP
    starts at latest (and a broker without Metadata v14 raises UnsupportedVersion); with
    ``bounds=True`` kcli's bounds decide there instead (kcli.ages, as ``--to-latest --max-age``):
    latest only when the age is proven over ``max_age``, else the beginning."""
    ms = _max_age_ms(max_age)
    if bounds and ms < 0:
        raise ConfigurationError("latest(bounds=True) needs a max age")
    return StartPolicy(LATEST, ms, age_bounds=bounds)


def _max_age_ms(value: int | str | None) -> int:
    if value is None:
        return -1
    if isinstance(value, bool):
        raise ConfigurationError(f"Invalid max age {value!r}")
    if isinstance(value, int):
        ms = value
    else:
        text = str(value).strip()
        try:
            ms = -1 if text == "-1" else parse_duration_ms(text)     # a bare number is ms
        except TimeParseError as exc:
            raise ConfigurationError(f"Invalid max age: {exc}") from None
    if ms < -1:
        raise ConfigurationError(f"Invalid max age {value!r}: must be at least -1 (disabled)")
    return ms


def parse_policy(value: StartPolicy | str) -> StartPolicy:
    """A policy object, or a name as ``auto.offset.reset`` spells it."""
    if isinstance(value, StartPolicy):
        return value
    name = _ALIASES.get(str(value).strip().lower())
    if name is None:
        raise ConfigurationError(
            f"Invalid start-offset policy {value!r}: use earliest, latest, to_start_time or "
            "latest(max_age=...)")
    return StartPolicy(name)


def from_config(config: dict, start: StartPolicy | str | None,
                new_partitions: StartPolicy | str | None = None) -> StartPolicy:
    """The policy, from ``start=`` (and ``new_partitions=``) or from the Kafka keys
    ``auto.offset.reset``, ``auto.offset.reset.latest.max.age`` and (accepted KIP-1327)
    ``auto.offset.reset.new.partitions`` (removed from ``config``: the library owns them)."""
    reset = config.pop("auto.offset.reset", None)
    max_age = config.pop("auto.offset.reset.latest.max.age", None)
    new = config.pop("auto.offset.reset.new.partitions", None)
    if start is not None or new_partitions is not None:
        if reset is not None or max_age is not None or new is not None:
            raise ConfigurationError(
                "Set the start-offset policy once: start= (with new_partitions=) or auto.offset.reset "
                "(with auto.offset.reset.latest.max.age or auto.offset.reset.new.partitions), not both")
        return with_new_partitions(parse_policy(start if start is not None else LATEST), new_partitions)
    policy = parse_policy(reset if reset is not None else LATEST)
    if policy.name == LATEST and max_age is not None:   # KIP-1327: ignored for other policies
        policy = latest(max_age)
    return with_new_partitions(policy, new)


def group_protocol(config: dict) -> str:
    return str(config.get("group.protocol", "classic")).strip().lower()


def check_protocol(policy: StartPolicy, config: dict) -> None:
    """KIP-1282/KIP-1327: these policies exist only for consumer-protocol groups."""
    protocol = group_protocol(config)
    if policy.needs_consumer_protocol and protocol != "consumer":
        raise ConfigurationError(
            f"The start-offset policy {policy} requires group.protocol=consumer; it is not "
            f"available for classic consumer groups (group.protocol={protocol})")

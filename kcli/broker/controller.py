"""The embedded cluster's simulated KRaft controller: its metadata quorum (DescribeQuorum) and the
finalized feature levels (UpdateFeatures, ApiVersions' SupportedFeatures/FinalizedFeatures).

The quorum (docs/broker.md, "The metadata quorum and features"): the first three node ids are
the voters, as a static ``controller.quorum.voters`` of combined broker+controller nodes
(kraft.version 0: no directory ids); any further node is a broker-only observer (a directory id
of its own). The lowest live voter is elected leader at start and when the leader stops; each
election after the first adds one to the leader epoch (which starts at 1). The metadata log's end
offset grows by one for every change of the cluster's state (``Cluster.save``) and, as KRaft's
leader writes a NoOpRecord every ``metadata.max.idle.interval.ms`` (500 ms), by one every 500 ms;
the high watermark is that end offset. A live replica has fetched it all just now (its last fetch
and last caught-up times are the present); a stopped one keeps the end offset and the time of its
stop.

Features (KIP-584, KIP-778, KIP-1022), as Apache Kafka 4.4 supports and finalizes them on a new
cluster with a static quorum; an update is validated as its controller does
(``FeatureControlManager``): the level within the supported range, an upgrade only with the
upgrade type, a downgrade only with a downgrade type, a metadata.version downgrade refused (it
might delete metadata), kraft.version never downgraded, the dependencies checked; nothing is
changed on validate-only or when any update fails.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from kcli import features
from kcli.broker.errors import BrokerError, Err
from kcli.features import DEPENDENCIES, KRAFT_VERSION, METADATA_VERSION

MINIMUM_METADATA_VERSION = features.MINIMUM_LEVEL
NOOP_INTERVAL_MS = 500                  # metadata.max.idle.interval.ms
VOTERS = 3

# A new 4.4 cluster's finalized levels: the latest production metadata.version's defaults, but
# kraft.version 0 (a static quorum: controller.quorum.voters)
BOOTSTRAP_LEVELS = {METADATA_VERSION: features.LATEST_PRODUCTION_LEVEL,
                    **{name: features.default_level(name, features.LATEST_PRODUCTION_LEVEL)
                       for name in features.FEATURE_MAX_LEVELS}, KRAFT_VERSION: 0}

UPGRADE, SAFE_DOWNGRADE, UNSAFE_DOWNGRADE = 1, 2, 3
ZERO_UUID = uuid.UUID(int=0)


@dataclass
class ReplicaState:
    replica_id: int
    directory_id: uuid.UUID
    log_end_offset: int
    last_fetch_timestamp: int
    last_caught_up_timestamp: int


@dataclass
class QuorumState:
    leader_id: int
    leader_epoch: int
    high_watermark: int
    voters: list[ReplicaState]
    observers: list[ReplicaState]


class Controller:
    """One per cluster: ``cluster`` gives the nodes, their liveness and the clock."""

    def __init__(self, cluster, serves_features: bool = True):
        self.cluster = cluster
        self.serves_features = serves_features
        self.finalized: dict[str, int] = dict(BOOTSTRAP_LEVELS) if serves_features else {}
        self.records = 0                            # metadata records written (state changes)
        self.epoch = 1
        self.started_ms = cluster.now_ms()
        self._leader: int | None = None             # None: no leader elected yet
        self._stopped: dict[int, tuple[int, int]] = {}   # node -> (log end offset, time) at its stop
        cluster.node_listeners.append(self._node_changed)

    # -- persistence (cluster.json) ------------------------------------------------------------

    def to_json(self) -> dict:
        return {"finalized": self.finalized, "records": self.log_end_offset(), "epoch": self.epoch}

    def load(self, state: dict) -> None:
        self.finalized = dict(state.get("finalized", self.finalized))
        self.records = state.get("records", 0)
        self.epoch = state.get("epoch", 1)

    # -- the quorum ---------------------------------------------------------------------------

    def voter_ids(self) -> list[int]:
        return sorted(self.cluster.node_ids)[:VOTERS]

    def leader_id(self) -> int:
        """The leader stays while it lives; when it stops the lowest live voter is elected."""
        if self._leader is None or not self.cluster.is_up(self._leader):
            live = [n for n in self.voter_ids() if self.cluster.is_up(n)]
            if not live:
                return -1
            if self._leader is not None:
                self.epoch += 1
            self._leader = min(live)
        return self._leader

    def log_end_offset(self) -> int:
        return self.records + max(self.cluster.now_ms() - self.started_ms, 0) // NOOP_INTERVAL_MS

    def record_written(self) -> None:
        self.records += 1

    def _node_changed(self, node_id: int, up: bool) -> None:
        if up:
            self._stopped.pop(node_id, None)
        else:
            self._stopped[node_id] = (self.log_end_offset(), self.cluster.now_ms())
        self.leader_id()                # an election, if the leader stopped

    def directory_id(self, node_id: int) -> uuid.UUID:
        """Voters of a static quorum have none; an observer's is its metadata log directory's."""
        if node_id in self.voter_ids():
            return ZERO_UUID
        return uuid.uuid5(uuid.NAMESPACE_OID, f"{self.cluster.cluster_id}/{node_id}")

    def quorum(self) -> QuorumState:
        """The quorum as its leader describes it; BrokerError when no voter is up."""
        leader = self.leader_id()
        if leader < 0:
            raise BrokerError(Err.NOT_LEADER_OR_FOLLOWER, "There is no leader of the metadata quorum.")
        now, end = self.cluster.now_ms(), self.log_end_offset()

        def state(n: int) -> ReplicaState:
            offset, at = self._stopped.get(n, (end, now)) if not self.cluster.is_up(n) else (end, now)
            return ReplicaState(n, self.directory_id(n), offset, at, at)

        voters = [state(n) for n in self.voter_ids()]
        observers = [state(n) for n in sorted(self.cluster.node_ids) if n not in self.voter_ids()]
        return QuorumState(leader, self.epoch, end, voters, observers)

    # -- features -----------------------------------------------------------------------------

    def supported(self) -> dict[str, tuple[int, int]]:
        return features.supported() if self.serves_features else {}

    def update_features(self, updates: list[tuple[str, int, int]], validate_only: bool) -> None:
        """(feature, level, upgrade type) each; BrokerError (INVALID_UPDATE_VERSION) names the
        first that fails, and then nothing changes."""
        proposed = {**self.finalized, **{name: level for name, level, _ in updates}}
        for name, level, kind in updates:
            self._check(name, level, kind, proposed)
        if validate_only:
            return
        for name, level, _ in updates:
            self.finalized[name] = level
        self.cluster.save()

    def _check(self, name: str, level: int, kind: int, proposed: dict[str, int]) -> None:
        def invalid(reason: str) -> BrokerError:
            return BrokerError(Err.INVALID_UPDATE_VERSION,
                               f"Invalid update version {level} for feature {name}. {reason}")

        if kind not in (UPGRADE, SAFE_DOWNGRADE, UNSAFE_DOWNGRADE):
            raise invalid("The controller does not support the given upgrade type.")
        current = self.finalized.get(name, 0)
        if level < 0:
            raise invalid("A feature version cannot be less than 0.")
        lo, hi = self.supported().get(name, (0, 0))
        if not lo <= level <= hi:
            leader = self.leader_id()
            raise invalid(f"Local controller {leader} does not support this feature." if hi == 0
                          else f"Local controller {leader} only supports versions "
                               f"{lo if lo == hi else f'{lo}-{hi}'}")
        if level < current and kind == UPGRADE:
            raise invalid("Can't downgrade the version of this feature without setting the "
                          "upgrade type to either safe or unsafe downgrade.")
        if level > current and kind != UPGRADE:
            raise invalid("Can't downgrade to a newer version.")
        if name == METADATA_VERSION:
            if level < current:
                raise BrokerError(Err.INVALID_UPDATE_VERSION, (
                    f"Unsupported metadata.version downgrade from {current} to {level}. " + (
                        "Unsafe metadata downgrade is not supported in this version."
                        if kind == UNSAFE_DOWNGRADE else "Refusing to perform the requested "
                        "downgrade because it might delete metadata information.")))
            return
        if name == KRAFT_VERSION:
            if kind != UPGRADE and level != current:
                raise invalid("Can't downgrade the version of this feature.")
            return
        if level >= 1 and proposed.get(METADATA_VERSION, 0) < MINIMUM_METADATA_VERSION:
            raise invalid(f"{name} could not be set to {level} because it depends on "
                          f"metadata.version={MINIMUM_METADATA_VERSION} "
                          f"({features.metadata_version_name(MINIMUM_METADATA_VERSION)})")
        for dep, needed in DEPENDENCIES.get((name, level), {}).items():
            if proposed.get(dep, 0) < needed:
                raise invalid(f"{name} could not be set to {level} because it depends on "
                              f"{dep} level {needed}")

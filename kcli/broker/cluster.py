"""The embedded cluster's state: nodes, topics, partitions, configs; persisted under data_dir.

Everything here runs on the broker's event loop thread. Handlers (ours and the group
coordinators') read and change it through this interface.

Leadership: a partition's leader is its elected replica, the first (preferred) one unless an
election (ElectLeaders) or a reassignment chose another; while that node is stopped the partition
has no leader (-1): there is no automatic failover, an election moves it. The ISR holds the
replicas that are up and caught up: a replica whose node stopped keeps its log end offset of
then (``Partition.behind``) and, once up again, copies what it missed only while the leader is
up; until then it lags, out of the ISR (in memory only: a restart from data_dir starts every
replica caught up). Each leader change (stop or start of the leader's node, an
election) bumps the partition's leader epoch, as KRaft does.

Reassignment (AlterPartitionReassignments): the partition's replicas become the target followed by
the replicas being removed, as KRaft writes them; each adding replica copies the log (its bytes,
``PartitionLog.size_bytes``) at ``REPLICA_COPY_BYTES_PER_S``, or at the replication throttle where
the topic's ``*.replication.throttled.replicas`` name it (``*.replication.throttled.rate`` of its
broker, per replica: the rate is not shared between a broker's partitions), and joins the ISR when
it has caught up with the log end; when every adding replica has, the removed replicas leave and,
if the leader was one of them, the first live target replica leads. Every replica shares the one
log: a copy is a counter, not a second file.

Group coordinator placement: Kafka hashes the group id onto a ``__consumer_offsets`` partition
(Java ``String.hashCode``, 50 partitions) and uses that partition's leader. Here partition ``p``
is preferably led by ``node_ids[p % N]``; when that node is down the next node (in node id order,
cyclically) that is up takes over, as a replicated offsets topic fails over. Only when every node
is down is the preferred node returned.

On disk (``data_dir``): ``cluster.json`` (topics, partition assignments, creation times, leader
epochs, log start offsets, topic and dynamic broker configs, users' salted credentials, ACLs
and super users; written atomically on each change)
and ``logs/<topic-id>-<partition>.log`` (the record batches).
"""

from __future__ import annotations

import asyncio
import base64
import json
import re
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Mapping

from kcli.broker import configs as cfg
from kcli.broker import acl, scram
from kcli.broker.controller import Controller
from kcli.broker.errors import BrokerError, Err
from kcli.broker.files import replace_durably
from kcli.broker.log import PartitionLog

OMITTED = -2      # a test refusal (EmbeddedCluster.refuse "OMIT"): no answer for the key

OFFSETS_TOPIC_PARTITIONS = 50
REPLICA_COPY_BYTES_PER_S = 64 << 20   # an unthrottled replica's copy rate while it catches up
REPLICATION_TICK_S = 0.05             # how often catching-up replicas advance
_LEGAL_TOPIC = re.compile(r"^[a-zA-Z0-9._-]+$")


def _java_string_hash(s: str) -> int:
    data = s.encode("utf-16-be")
    h = 0
    for i in range(0, len(data), 2):
        h = (31 * h + (data[i] << 8 | data[i + 1])) & 0xFFFFFFFF
    return h - (1 << 32) if h & 0x80000000 else h


def _uuid_text(value: uuid.UUID) -> str:
    return base64.urlsafe_b64encode(value.bytes).decode().rstrip("=")


def random_uuid() -> uuid.UUID:
    """A random id as Kafka's Uuid.randomUuid makes one: never 0 or 1 (reserved), never one whose
    text starts with '-' (the tools would read it as an option: --topic-id -x...)."""
    while True:
        value = uuid.uuid4()
        if value.int > 1 and not _uuid_text(value).startswith("-"):
            return value

@dataclass
class Partition:
    index: int
    replicas: list[int]
    creation_time_ms: int
    log: PartitionLog
    leader_epoch: int = 0
    _cluster: "Cluster" = field(default=None, repr=False)  # type: ignore[assignment]  # set by its Cluster
    elected_id: int | None = None      # None: the preferred replica (replicas[0])
    adding: list[int] = field(default_factory=list)      # a reassignment's new replicas
    removing: list[int] = field(default_factory=list)    # and the ones it removes
    copying: dict[int, float] = field(default_factory=dict)  # adding replica -> bytes copied
    behind: dict[int, int] = field(default_factory=dict)     # replica -> its log end, while it lags

    @property
    def elected(self) -> int:
        return self.replicas[0] if self.elected_id is None else self.elected_id

    @property
    def leader(self) -> int:
        return self.elected if self._cluster.is_up(self.elected) else -1

    @property
    def isr(self) -> list[int]:
        end = self.log.log_end_offset
        return [r for r in self.replicas if self._cluster.is_up(r) and r not in self.copying
                and self.behind.get(r, end) >= end]

    def replica_end(self, replica: int) -> int:
        """The log end offset of ``replica``'s copy: the log's, unless it lags."""
        return min(self.behind.get(replica, self.log.log_end_offset), self.log.log_end_offset)

    def catch_up(self) -> None:
        """While the leader is up, every replica that is up copies what it missed."""
        if self.behind and self._cluster.is_up(self.elected):
            self.behind = {r: o for r, o in self.behind.items() if not self._cluster.is_up(r)}

    @property
    def target(self) -> list[int]:
        """The replicas once the reassignment in progress (if any) completes."""
        return [r for r in self.replicas if r not in self.removing]

    def elect(self, node_id: int) -> None:
        if node_id != self.elected:
            self.leader_epoch += 1
        self.elected_id = None if node_id == self.replicas[0] and not self.adding else node_id
        self.catch_up()

    @property
    def offline_replicas(self) -> list[int]:
        return [r for r in self.replicas if not self._cluster.is_up(r)]


@dataclass
class Topic:
    name: str
    topic_id: uuid.UUID
    partitions: list[Partition]
    configs: dict[str, str]            # overrides only
    _cluster: "Cluster" = field(default=None, repr=False)  # type: ignore[assignment]  # set by its Cluster

    def config(self, name: str, node_id: int | None = None) -> str:
        """The effective value of a topic config (on ``node_id``, see configs.topic_value)."""
        return cfg.topic_value(name, self.configs, self._cluster.broker_configs, node_id)


def validate_topic_name(name: str) -> None:
    if not name:
        raise BrokerError(Err.INVALID_TOPIC_EXCEPTION, "Topic name is illegal, it can't be empty")
    if name in (".", ".."):
        raise BrokerError(Err.INVALID_TOPIC_EXCEPTION, 'Topic name cannot be "." or ".."')
    if len(name) > 249:
        raise BrokerError(Err.INVALID_TOPIC_EXCEPTION, "Topic name is illegal, it can't be longer "
                          f"than 249 characters, topic name: {name}")
    if not _LEGAL_TOPIC.match(name):
        raise BrokerError(Err.INVALID_TOPIC_EXCEPTION, f'Topic name "{name}" is illegal, it '
                          "contains a character other than ASCII alphanumerics, '.', '_' and '-'")


class Cluster:
    def __init__(self, node_ids: list[int], data_dir: str | Path | None = None,
                 clock: Callable[[], int] | None = None, configs: dict[str, str] | None = None,
                 pose_as: str | None = None, record_creation_times: bool = True,
                 sasl_users: dict[str, str] | None = None, authorize: bool = False,
                 super_users: list[str] | None = None, unsecured_oauthbearer: bool = False):
        self.node_ids = list(node_ids)
        self.data_dir = Path(data_dir) if data_dir is not None else None
        self._clock = clock or (lambda: int(time.time() * 1000))
        self.pose_as = pose_as
        self.topic_configs = cfg.topic_configs(pose_as)      # the release's own table
        self.record_creation_times = record_creation_times
        # SASL users: {name: {mechanism: scram.Credential}}; ``sasl`` False: PLAINTEXT listeners
        self.sasl = sasl_users is not None
        self.users: dict[str, dict[str, scram.Credential]] = {}
        # SASL/OAUTHBEARER offered too, with Kafka's unsecured validator (kcli.broker.oauth)
        self.unsecured_oauthbearer = unsecured_oauthbearer
        # the authorizer (kcli.broker.acl): off, every request allowed, unless ``authorize``
        self.authorize = authorize
        self.authorizer = acl.Authorizer(super_users or ())
        self._super_users_given = bool(super_users)     # else the data dir's, if any
        self.broker_configs = cfg.BrokerConfigs(configs)
        self.topics: dict[str, Topic] = {}
        self.cluster_id = _uuid_text(random_uuid())
        self.addresses: dict[int, tuple[str, int]] = {}
        self.node_listeners: list[Callable[[int, bool], None]] = []   # (node_id, is_up)
        self._up: set[int] = set()
        self.unregistered: set[int] = set()      # UnregisterBroker's, until the node starts again
        self._next_producer_id = 1000
        self._appended = asyncio.Event()
        self._replicating: asyncio.Task | None = None
        # client quotas: entity ((type, name or None for the default), ... sorted) -> {key: value}
        self.quotas: dict[tuple[tuple[str, str | None], ...], dict[str, float]] = {}
        self._quota_windows: dict[tuple[str, str], tuple[float, float]] = {}  # (key, client): (start, bytes)
        # Tests' refusals (EmbeddedCluster.refuse): {API name: [error code, group keys left to
        # refuse (None: every one)]}, as a real coordinator answers while __consumer_offsets is
        # not there yet or loads, or after its group moved.
        # OMITTED as the code: the FindCoordinator key is left out of the answer.
        self.refusals: dict[str, list] = {}
        self.controller = Controller(self, serves_features=pose_as != "2.8")
        if self.data_dir is None or not self._load():
            self._bootstrap()
        for name, password in (sasl_users or {}).items():
            self.set_password(name, password)
        if self._super_users_given:
            self.save()

    # -- the interface other handlers use --------------------------------------------------

    def now_ms(self) -> int:
        return int(self._clock())

    def is_up(self, node_id: int) -> bool:
        return node_id in self._up

    def node_address(self, node_id: int) -> tuple[str, int]:
        return self.addresses[node_id]

    def topic_by_id(self, topic_id: uuid.UUID) -> Topic | None:
        for t in self.topics.values():
            if t.topic_id == topic_id:
                return t
        return None

    def offsets_partition(self, key: str) -> int:
        """The ``__consumer_offsets`` (or ``__transaction_state``: 50 partitions too) partition
        of a group (a transactional) id."""
        return (_java_string_hash(key) & 0x7FFFFFFF) % OFFSETS_TOPIC_PARTITIONS

    def coordinator_node(self, key: str) -> int:
        """The node coordinating a group id, or a transactional id (Kafka places both alike)."""
        p = self.offsets_partition(key)
        n = len(self.node_ids)
        for i in range(n):
            node = self.node_ids[(p + i) % n]
            if self.is_up(node):
                return node
        return self.node_ids[p % n]

    def refusal(self, api: str) -> int | None:
        """The error code a test asked ``api`` to answer for one more group key (counted), or
        None: answer as usual."""
        entry = self.refusals.get(api)
        if entry is None:
            return None
        code, left = entry
        if left is not None:
            if left <= 1:
                del self.refusals[api]
            else:
                entry[1] = left - 1
        return code

    def broker_config(self, name: str, node_id: int | None = None) -> str | None:
        return self.broker_configs.value(name, node_id)

    def controller_id(self) -> int:
        return min(self._up, default=-1)

    # -- users ----------------------------------------------------------------------------

    def set_password(self, user: str, password: str) -> None:
        """``user``'s credentials for every SCRAM mechanism (PLAIN checks them too)."""
        self.users[user] = {m: scram.make_credential(m, password) for m in scram.MECHANISMS}
        self.save()

    def set_credential(self, user: str, credential: "scram.Credential | None",
                       mechanism: str) -> None:
        """Add or replace (``credential``) or remove (None) one mechanism's credential."""
        mechanisms = self.users.setdefault(user, {})
        if credential is None:
            mechanisms.pop(mechanism, None)
        else:
            mechanisms[mechanism] = credential
        if not mechanisms:
            del self.users[user]
        self.save()

    def add_acls(self, bindings: list["acl.AclBinding"]) -> None:
        for b in bindings:
            self.authorizer.add(b)
        self.save()

    def remove_acls(self, bindings: list["acl.AclBinding"]) -> None:
        self.authorizer.remove(bindings)
        self.save()

    # -- nodes -----------------------------------------------------------------------------

    def set_node_up(self, node_id: int, up: bool) -> None:
        if up:
            self.unregistered.discard(node_id)   # a node that starts registers again
        if up == self.is_up(node_id):
            return
        (self._up.add if up else self._up.discard)(node_id)
        for t in self.topics.values():
            for p in t.partitions:
                if p.elected == node_id:
                    p.leader_epoch += 1
                if not up and node_id in p.replicas:
                    p.behind.setdefault(node_id, p.log.log_end_offset)
                p.catch_up()
        self.save()
        for listener in list(self.node_listeners):
            listener(node_id, up)
        self.notify_append()

    def unregister(self, node_id: int) -> None:
        """UnregisterBroker, as Kafka's controller does it: a registered node, fenced (stopped)
        or not, loses its registration: it is no longer listed, even among the fenced brokers,
        and its replicas are offline (a running one, as Kafka's, is out of the cluster until it
        starts again); BROKER_ID_NOT_REGISTERED for any other id."""
        if node_id not in self.addresses or node_id in self.unregistered:
            raise BrokerError(Err.BROKER_ID_NOT_REGISTERED, f"Broker ID {node_id} is not currently registered")
        self.unregistered.add(node_id)
        self.set_node_up(node_id, False)

    # -- topics ----------------------------------------------------------------------------

    def _place(self, first_index: int, count: int, rf: int) -> list[list[int]]:
        up = [n for n in self.node_ids if self.is_up(n)]
        if not up:
            raise BrokerError(Err.INVALID_REPLICATION_FACTOR, f"Unable to replicate the partition "
                              f"{rf} time(s): All brokers are currently fenced or in controlled "
                              "shutdown.")
        if rf > len(up):
            raise BrokerError(Err.INVALID_REPLICATION_FACTOR, f"Unable to replicate the partition "
                              f"{rf} time(s): The target replication factor of {rf} cannot be "
                              f"reached because only {len(up)} broker(s) are registered.")
        start = len(self.topics)
        return [[up[(start + p + i) % len(up)] for i in range(rf)]
                for p in range(first_index, first_index + count)]

    def _check_assignment(self, assignment: list[list[int]]) -> None:
        for replicas in assignment:
            if not replicas or len(set(replicas)) != len(replicas):
                raise BrokerError(Err.INVALID_REPLICA_ASSIGNMENT,
                                  f"Duplicate or empty replica assignment: {replicas}")
            unknown = [r for r in replicas if r not in self.node_ids]
            if unknown:
                raise BrokerError(Err.INVALID_REPLICA_ASSIGNMENT, "The manual partition "
                                  f"assignment includes broker(s) that are not registered: {unknown}")

    def _creation_stamp(self, creation_time_ms: int | None) -> int:
        """One stamp for every partition a request creates, as the controller writes their
        records in one batch."""
        if creation_time_ms is not None:
            return creation_time_ms
        return self.now_ms() if self.record_creation_times else -1

    def _new_partition(self, topic_id: uuid.UUID, index: int, replicas: list[int],
                       creation_time_ms: int) -> Partition:
        return Partition(index, replicas, creation_time_ms, self._open_log(topic_id, index),
                         _cluster=self)

    def _open_log(self, topic_id: uuid.UUID, index: int, log_start: int = 0) -> PartitionLog:
        path = None if self.data_dir is None else self.data_dir / "logs" / f"{topic_id}-{index}.log"
        return PartitionLog(path, log_start)

    def validate_topic_configs(self, configs: Mapping[str, str | None]) -> None:
        for name, value in configs.items():
            try:
                cfg.validate(self.topic_configs, name, value, "topic")
            except cfg.ConfigError as e:
                raise BrokerError(Err.INVALID_CONFIG, str(e)) from None

    def create_topic(self, name: str, num_partitions: int = -1, replication_factor: int = -1,
                     assignment: list[list[int]] | None = None,
                     configs: dict[str, str] | None = None, validate_only: bool = False,
                     creation_time_ms: int | None = None) -> Topic:
        """Create a topic (or only validate, with ``validate_only``); raises BrokerError.
        ``creation_time_ms`` overrides the stamp (-1: unknown, as before an upgrade)."""
        validate_topic_name(name)
        if name in self.topics:
            raise BrokerError(Err.TOPIC_ALREADY_EXISTS, f"Topic '{name}' already exists.")
        canon = name.replace(".", "_")
        for other in self.topics:
            if other.replace(".", "_") == canon:
                raise BrokerError(Err.INVALID_TOPIC_EXCEPTION,
                                  f"Topic '{name}' collides with existing topic: {other}")
        configs = dict(configs or {})
        self.validate_topic_configs(configs)
        if assignment:
            if num_partitions != -1 or replication_factor != -1:
                raise BrokerError(Err.INVALID_REQUEST, "Both numPartitions or replicationFactor "
                                  "and replicasAssignments were set. Both cannot be used at the "
                                  "same time.")
            self._check_assignment(assignment)
        else:
            if replication_factor < -1 or replication_factor == 0:
                raise BrokerError(Err.INVALID_REPLICATION_FACTOR, "Replication factor must be "
                                  "larger than 0, or -1 to use the default value.")
            if num_partitions < -1 or num_partitions == 0:
                raise BrokerError(Err.INVALID_PARTITIONS, "Number of partitions was set to an "
                                  "invalid non-positive value.")
            if num_partitions == -1:
                num_partitions = int(self.broker_configs.required("num.partitions"))
            if replication_factor == -1:
                replication_factor = int(self.broker_configs.required("default.replication.factor"))
            assignment = self._place(0, num_partitions, replication_factor)
        topic_id = random_uuid()
        if validate_only:
            return Topic(name, topic_id, [Partition(i, r, -1, PartitionLog(), _cluster=self)
                                          for i, r in enumerate(assignment)], configs, self)
        topic = Topic(name, topic_id, [], configs, self)
        creation_time_ms = self._creation_stamp(creation_time_ms)
        topic.partitions = [self._new_partition(topic_id, i, r, creation_time_ms)
                            for i, r in enumerate(assignment)]
        self.topics[name] = topic
        self.save()
        return topic

    def create_partitions(self, name: str, count: int, assignment: list[list[int]] | None = None,
                          validate_only: bool = False, creation_time_ms: int | None = None) -> None:
        topic = self.topics.get(name)
        if topic is None:
            raise BrokerError(Err.UNKNOWN_TOPIC_OR_PARTITION,
                              "This server does not host this topic-partition.")
        current = len(topic.partitions)
        if count == current:
            raise BrokerError(Err.INVALID_PARTITIONS, f"Topic already has {current} partition(s).")
        if count < current:
            raise BrokerError(Err.INVALID_PARTITIONS, f"The topic {name} currently has {current} "
                              f"partition(s); {count} would not be an increase.")
        additional = count - current
        if assignment is not None:
            if len(assignment) != additional:
                raise BrokerError(Err.INVALID_REPLICA_ASSIGNMENT, f"Attempted to add {additional} "
                                  f"additional partition(s), but only {len(assignment)} "
                                  "assignment(s) were specified.")
            self._check_assignment(assignment)
        else:
            assignment = self._place(current, additional, len(topic.partitions[0].replicas))
        if validate_only:
            return
        creation_time_ms = self._creation_stamp(creation_time_ms)
        for i, replicas in enumerate(assignment, start=current):
            topic.partitions.append(self._new_partition(topic.topic_id, i, replicas,
                                                        creation_time_ms))
        self.save()

    def delete_topic(self, name: str) -> None:
        topic = self.topics.pop(name)
        for p in topic.partitions:
            p.log.destroy()
        self.save()
        self.notify_append()

    def set_topic_configs(self, name: str, configs: dict[str, str]) -> None:
        self.topics[name].configs = dict(configs)
        self.save()

    # -- reassignment and elections ----------------------------------------------------------

    def partition(self, name: str, index: int) -> Partition:
        topic = self.topics.get(name)
        if topic is None or not 0 <= index < len(topic.partitions):
            raise BrokerError(Err.UNKNOWN_TOPIC_OR_PARTITION,
                              "This server does not host this topic-partition.")
        return topic.partitions[index]

    def reassign(self, name: str, index: int, target: list[int] | None) -> None:
        """Start (or replace) a reassignment of one partition to ``target``; None cancels the
        one in progress (the original replicas back, the added ones dropped)."""
        p = self.partition(name, index)
        original = [r for r in p.replicas if r not in p.adding]
        if target is None:
            if not p.adding and not p.removing:
                raise BrokerError(Err.NO_REASSIGNMENT_IN_PROGRESS,
                                  f"No ongoing reassignment for {name}-{index}.")
            p.replicas, p.adding, p.removing, p.copying = original, [], [], {}
            if p.elected not in original:
                p.elect(next((r for r in original if self.is_up(r)), original[0]))
            self._settle_leader(p)
            self.save()
            self.notify_append()
            return
        if not target or len(set(target)) != len(target):
            raise BrokerError(Err.INVALID_REPLICA_ASSIGNMENT,
                              f"Duplicate replica assignment for {name}-{index}: {target}")
        unknown = [r for r in target if r not in self.node_ids]
        if unknown:
            raise BrokerError(Err.INVALID_REPLICA_ASSIGNMENT, f"The manual partition "
                              f"assignment includes broker(s) that are not registered: {unknown}")
        if target == original and not p.adding and not p.removing:
            return                                          # nothing to move
        leader = p.elected
        p.adding = [r for r in target if r not in original]
        p.removing = [r for r in original if r not in target]
        p.copying = {r: p.copying.get(r, 0) for r in p.adding}
        p.replicas = list(target) + p.removing
        p.elected_id = leader                               # the leader stays while replicas copy
        self._complete_if_copied(p)
        self.save()
        self._start_replicating()

    def reassignments(self) -> list[tuple[str, Partition]]:
        return [(t.name, p) for t in self.topics.values() for p in t.partitions
                if p.adding or p.removing]

    def elect_leader(self, name: str, index: int, unclean: bool) -> None:
        """ElectLeaders for one partition: the preferred replica, or (``unclean``) where the
        partition has no leader, the first live in-sync replica, else the first live one (as Kafka's
        controller; the records a lagging one has not copied would be lost on a real broker, here
        the one log keeps them)."""
        p = self.partition(name, index)
        if unclean:
            if p.leader != -1:
                raise BrokerError(Err.ELECTION_NOT_NEEDED, "Leader election not needed for topic "
                                  "partition.")
            live = [r for r in p.replicas if self.is_up(r) and r not in p.removing]
            chosen = next((r for r in live if r in p.isr), live[0] if live else None)
            if chosen is None:
                raise BrokerError(Err.ELIGIBLE_LEADERS_NOT_AVAILABLE, "Unable to perform unclean "
                                  f"leader election for partition {name}-{index}: no live replica.")
        else:
            chosen = p.replicas[0]
            if p.leader == chosen:
                raise BrokerError(Err.ELECTION_NOT_NEEDED, "Leader election not needed for topic "
                                  "partition.")
            if chosen not in p.isr:
                raise BrokerError(Err.PREFERRED_LEADER_NOT_AVAILABLE, "Failed to elect leader for "
                                  f"partition {name}-{index} under strategy "
                                  "PreferredReplicaPartitionLeaderElectionStrategy")
        p.elect(chosen)                 # a lagging replica elected: the others copy from it
        self.save()
        self.notify_append()

    def _settle_leader(self, p: Partition) -> None:
        if p.elected_id is not None and p.elected_id == p.replicas[0] and not p.adding:
            p.elected_id = None

    def _complete_if_copied(self, p: Partition) -> bool:
        """Finish a reassignment whose adding replicas have all caught up."""
        if p.copying or not (p.adding or p.removing):
            return False
        target = p.target
        p.replicas, p.adding, p.removing = target, [], []
        if p.elected not in target:
            p.elect(next((r for r in target if self.is_up(r)), target[0]))
        self._settle_leader(p)
        return True

    def copy_rate(self, topic: Topic, p: Partition, replica: int) -> float:
        """Bytes per second ``replica`` copies at: the lower of the throttles that apply."""
        rate = float(REPLICA_COPY_BYTES_PER_S)
        for role, node in (("follower", replica), ("leader", p.elected)):
            listed = topic.config(f"{role}.replication.throttled.replicas")
            if listed.strip() == "*" or f"{p.index}:{node}" in {x.strip() for x in listed.split(",")}:
                rate = min(rate, float(self.broker_configs.required(
                    f"{role}.replication.throttled.rate", node)))
        return rate

    def advance_replicas(self, elapsed_s: float) -> None:
        """Every adding replica whose broker (and its partition's leader) is up copies
        ``elapsed_s`` worth of bytes; a caught-up one joins the ISR; a reassignment whose
        replicas all have completes."""
        changed = False
        for t in self.topics.values():
            for p in t.partitions:
                if not p.copying:
                    continue
                for r in list(p.copying):
                    if not self.is_up(r) or p.leader == -1:
                        continue
                    p.copying[r] += self.copy_rate(t, p, r) * elapsed_s
                    if p.copying[r] >= p.log.size_bytes:
                        del p.copying[r]
                        changed = True
                changed |= self._complete_if_copied(p)
        if changed:
            self.save()
            self.notify_append()

    def _start_replicating(self) -> None:
        if self._replicating is None and any(p.copying or p.removing for _, p in self.reassignments()):
            self._replicating = asyncio.get_running_loop().create_task(self._replicate())

    async def _replicate(self) -> None:
        try:
            last = time.monotonic()
            while self.reassignments():
                await asyncio.sleep(REPLICATION_TICK_S)
                now = time.monotonic()
                self.advance_replicas(now - last)
                last = now
        finally:
            self._replicating = None

    def allocate_producer_id(self) -> int:
        pid = self._next_producer_id
        self._next_producer_id += 1
        self.save()
        return pid

    # -- client quotas, as throttles -------------------------------------------------------

    QUOTA_WINDOW_S = 10.0                  # Kafka's quota window: 11 samples of 1 s, about this

    def client_quota(self, key: str, client_id: str | None) -> float | None:
        """The ``key`` quota (producer_byte_rate, consumer_byte_rate) of a client id: its own
        entity's, else the client-id default's; None: no quota. (Quotas of users and of a user's
        clients are stored, not enforced: the broker keeps no principal per connection.)"""
        for entity in ((("client-id", client_id),), (("client-id", None),)):
            value = self.quotas.get(entity, {}).get(key)
            if value is not None:
                return value
        return None

    def throttle_ms(self, key: str, client_id: str | None, size: int) -> int:
        """Record ``size`` bytes of ``client_id`` against its ``key`` quota; the throttle time
        Kafka's quota manager would answer with: how long until the window's bytes fit the rate
        (0 within it). Responses carry it (throttle_time_ms): clients back off themselves
        (KIP-219); the broker does not mute the connection."""
        rate = self.client_quota(key, client_id)
        if rate is None or rate <= 0:
            return 0
        now = time.monotonic()
        start, used = self._quota_windows.get((key, client_id or ""), (now, 0.0))
        if now - start > self.QUOTA_WINDOW_S:
            start, used = now, 0.0
        used += size
        self._quota_windows[(key, client_id or "")] = (start, used)
        elapsed = max(now - start, 1.0)
        return max(0, int((used - rate * elapsed) / rate * 1000))

    # -- data notifications ----------------------------------------------------------------

    def notify_append(self) -> None:
        event, self._appended = self._appended, asyncio.Event()
        event.set()

    async def wait_for_append(self, timeout_s: float) -> None:
        """Until the next append (or node/topic change), at most ``timeout_s``.

        Not ``asyncio.wait_for``: before Python 3.12 it swallows a cancellation that arrives as
        the awaited event fires, and stopping a node does both at once (set_node_up notifies,
        then the connection's task is cancelled), so a parked Fetch outlived its node by its
        whole max_wait_ms. ``asyncio.wait`` always lets the cancellation through."""
        waiter = asyncio.ensure_future(self._appended.wait())
        try:
            await asyncio.wait((waiter,), timeout=timeout_s)
        finally:
            waiter.cancel()

    # -- persistence -----------------------------------------------------------------------

    def save(self) -> None:
        """Every change of the cluster's state comes here: a metadata record written."""
        self.controller.record_written()
        if self.data_dir is None:
            return
        state = {
            "cluster_id": self.cluster_id,
            "next_producer_id": self._next_producer_id,
            "dynamic_broker_configs": self.broker_configs.dynamic,
            "sasl": self.sasl, "authorize": self.authorize,
            "acls": [b.to_json() for b in self.authorizer.acls],
            "super_users": sorted(self.authorizer.super_users),
            "users": {u: {m: c.to_json() for m, c in ms.items()} for u, ms in self.users.items()},
            "controller": self.controller.to_json(),
            "quotas": [{"entity": [list(c) for c in e], "values": q} for e, q in self.quotas.items()],
            "topics": [{
                "name": t.name, "topic_id": str(t.topic_id), "configs": t.configs,
                "partitions": [{"index": p.index, "replicas": p.replicas,
                                "creation_time_ms": p.creation_time_ms,
                                "leader_epoch": p.leader_epoch,
                                "log_start_offset": p.log.log_start_offset,
                                "elected": p.elected_id, "adding": p.adding,
                                "removing": p.removing}
                               for p in t.partitions],
            } for t in self.topics.values()],
        }
        replace_durably(self.data_dir / "cluster.json", lambda f: json.dump(state, f, indent=1))

    def _bootstrap(self) -> None:
        """A new cluster, as Kafka's controller activates one: since 4.1 a new cluster has
        eligible leader replicas (KIP-966) enabled, which writes the cluster-level dynamic
        ``min.insync.replicas`` (the configured value), so every topic describes it as a
        DYNAMIC_DEFAULT_BROKER_CONFIG (kafka-topics: ``Configs: min.insync.replicas=1``). A
        broker posing as 2.8 predates it."""
        if self.pose_as != "2.8":
            self.broker_configs.dynamic[""] = {
                "min.insync.replicas": self.broker_configs.required("min.insync.replicas")}
        self.save()

    def _load(self) -> bool:
        """The saved state, if any (False: a new cluster, or one kept in memory)."""
        if self.data_dir is None:
            return False
        (self.data_dir / "logs").mkdir(parents=True, exist_ok=True)
        path = self.data_dir / "cluster.json"
        if not path.exists():
            return False
        state = json.loads(path.read_text())
        self.cluster_id = state["cluster_id"]
        self._next_producer_id = state["next_producer_id"]
        self.broker_configs.dynamic = state["dynamic_broker_configs"]
        self.sasl = self.sasl or state.get("sasl", False)      # a secured cluster stays secured
        self.authorize = self.authorize or state.get("authorize", False)
        self.authorizer.acls = [acl.AclBinding(*b) for b in state.get("acls", [])]
        if not self._super_users_given:        # the super users given replace those kept
            self.authorizer.super_users = set(state.get("super_users", []))
        self.users = {u: {m: scram.Credential.from_json(m, c) for m, c in ms.items()}
                      for u, ms in state.get("users", {}).items()}
        self.quotas = {tuple((c[0], c[1]) for c in q["entity"]): q["values"]
                       for q in state.get("quotas", [])}
        self.controller.load(state.get("controller", {}))
        for t in state["topics"]:
            topic = Topic(t["name"], uuid.UUID(t["topic_id"]), [], t["configs"], self)
            for p in t["partitions"]:
                log = self._open_log(topic.topic_id, p["index"], p["log_start_offset"])
                topic.partitions.append(Partition(
                    p["index"], p["replicas"], p["creation_time_ms"], log, p["leader_epoch"], self,
                    p.get("elected"), p.get("adding", []), p.get("removing", []),
                    {r: 0 for r in p.get("adding", [])}))
                self._next_producer_id = max([self._next_producer_id,
                                              *(pid + 1 for pid in log.producers)])
            self.topics[topic.name] = topic
        return True

    def resume_replication(self) -> None:
        """Once the loop runs: a loaded reassignment's replicas copy again (from the start)."""
        self._start_replicating()

    def close(self) -> None:
        if self._replicating is not None:
            self._replicating.cancel()
            self._replicating = None
        for t in self.topics.values():
            for p in t.partitions:
                p.log.close()

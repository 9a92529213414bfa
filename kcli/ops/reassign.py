"""Partition reassignment and leader elections: plans (Java's reassignment JSON), a balanced
plan, the rollback file written before any move, throttles set and cleared, verify and cancel."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Sequence

from kcli.admin import Admin
from kcli.errors import BrokerRejected, OperationError, UsageError
from kcli.model import BrokerError, ElectionCandidate, Reassignment

UNKNOWN_TOPIC_OR_PARTITION = 3

TP = tuple[str, int]
THROTTLED_REPLICAS = ("leader.replication.throttled.replicas",
                      "follower.replication.throttled.replicas")
THROTTLE_RATES = ("leader.replication.throttled.rate", "follower.replication.throttled.rate")
LOG_DIR_THROTTLE = "replica.alter.log.dirs.io.max.bytes.per.second"


# -- plans (pure) -------------------------------------------------------------------------------

def parse_plan(text: str, source: str) -> dict[TP, list[int]]:
    """A reassignment JSON (``{"version":1,"partitions":[{"topic","partition","replicas"}]}``) as
    {(topic, partition): replicas}; UsageError naming what is wrong."""
    try:
        doc = json.loads(text)
    except ValueError as exc:
        raise UsageError(f"{source} is not JSON: {exc}") from None
    parts = doc.get("partitions") if isinstance(doc, dict) else None
    if not isinstance(parts, list) or not parts:
        raise UsageError(f"{source} has no \"partitions\" to reassign")
    plan: dict[TP, list[int]] = {}
    for entry in parts:
        topic = entry.get("topic") if isinstance(entry, dict) else None
        partition, replicas = (entry.get("partition"), entry.get("replicas")) if topic else (None, None)
        if (not isinstance(topic, str) or not isinstance(partition, int) or partition < 0
                or not isinstance(replicas, list) or not replicas
                or not all(isinstance(r, int) and r >= 0 for r in replicas)):
            raise UsageError(f"{source}: each partition needs a \"topic\", a \"partition\" and "
                             f"\"replicas\" (broker ids): {json.dumps(entry)}")
        if len(set(replicas)) != len(replicas):
            raise UsageError(f"{source}: duplicate replica in {topic}-{partition}: {replicas}")
        if (topic, partition) in plan:
            raise UsageError(f"{source}: {topic}-{partition} appears more than once")
        plan[(topic, partition)] = list(replicas)
    return plan


def plan_json(plan: dict[TP, list[int]], log_dirs: dict[tuple[str, int, int], str] | None = None) -> str:
    """The plan as kafka-reassign-partitions writes one: each replica's log dir from ``log_dirs``
    ((topic, partition, broker) -> dir), else "any"."""
    dirs = log_dirs or {}
    return json.dumps({"version": 1, "partitions": [
        {"topic": t, "partition": p, "replicas": r, "log_dirs": [dirs.get((t, p, b), "any") for b in r]}
        for (t, p), r in sorted(plan.items())]}, separators=(",", ":"), ensure_ascii=False)


def balanced(current: dict[TP, list[int]], brokers: list[int]) -> dict[TP, list[int]]:
    """Each partition on ``brokers`` with its replication factor, round robin over the partitions
    in order: leaders (first replicas) and replicas spread evenly."""
    brokers = sorted(set(brokers))
    plan: dict[TP, list[int]] = {}
    for c, (tp, replicas) in enumerate(sorted(current.items())):
        if len(replicas) > len(brokers):
            raise UsageError(f"{tp[0]}-{tp[1]} has {len(replicas)} replicas, more than the "
                             f"{len(brokers)} brokers in --broker-list")
        plan[tp] = [brokers[(c + k) % len(brokers)] for k in range(len(replicas))]
    return plan


def throttles(plan: dict[TP, list[int]], current: dict[TP, list[int]], moving: Sequence[Reassignment] = ()
              ) -> tuple[dict[str, dict[str, str]], list[int]]:
    """The throttles kafka-reassign-partitions sets (its move map): per topic, the leader list
    names each moving partition's sources (its replicas now, or those a move in progress started
    from), the follower list the replicas it moves to; moves in progress (``moving``) are kept
    throttled too. Each list in Java's TreeSet order ("p:broker" strings); the brokers involved."""
    moves: dict[TP, tuple[set[int], set[int]]] = {
        (r.topic, r.partition): (set(r.replicas) - set(r.adding), set(r.adding)) for r in moving}
    for tp, target in plan.items():
        sources = moves[tp][0] if tp in moves else set(current[tp])
        moves[tp] = (sources, set(target) - sources)
    lists: dict[str, tuple[set[str], set[str]]] = {}
    for (t, p), (sources, destinations) in moves.items():
        leader, follower = lists.setdefault(t, (set(), set()))
        leader.update(f"{p}:{b}" for b in sources)
        follower.update(f"{p}:{b}" for b in destinations)
    configs = {t: {THROTTLED_REPLICAS[0]: ",".join(sorted(lead)), THROTTLED_REPLICAS[1]: ",".join(sorted(follow))}
               for t, (lead, follow) in lists.items()}
    return configs, sorted({b for sources, destinations in moves.values() for b in sources | destinations})


# -- the cluster ----------------------------------------------------------------------------------

def existing_topics(admin: Admin, topics: list[str]) -> list:
    """The descriptions of those ``topics`` that exist (one describe; where one does not exist,
    the topic names asked first)."""
    names = sorted(set(topics))
    try:
        return admin.describe_topics(names) if names else []
    except BrokerRejected as exc:
        if exc.error.code != UNKNOWN_TOPIC_OR_PARTITION:
            raise
    names = sorted(set(names) & set(admin.topic_names()))
    return admin.describe_topics(names) if names else []


def replicas_now(admin: Admin, topics: list[str]) -> dict[TP, list[int]]:
    """Each partition's replicas of those ``topics`` that exist."""
    return {(t.name, p.partition): list(p.replicas) for t in existing_topics(admin, topics) for p in t.partitions}


def current_assignment(admin: Admin, topics: list[str]) -> dict[TP, list[int]]:
    current = replicas_now(admin, topics)
    missing = sorted(set(topics) - {t for t, _ in current})
    if missing:
        raise OperationError(f"Topic(s) not found: {', '.join(missing)}")
    return current


def replica_log_dirs(admin: Admin, current: dict[TP, list[int]]) -> dict[tuple[str, int, int], str]:
    """The log dir of each replica of ``current`` (DescribeLogDirs to their live brokers):
    (topic, partition, broker) -> dir; a replica no live broker reports is left out."""
    live = set(admin.broker_ids())
    brokers = sorted({b for replicas in current.values() for b in replicas} & live)
    wanted = {(t, p, b) for (t, p), replicas in current.items() for b in replicas}
    return {(r.topic, r.partition, r.broker): r.log_dir for r in admin.describe_log_dirs(brokers)
            if not r.future and (r.topic, r.partition, r.broker) in wanted}


def generate(admin: Admin, topics: list[str], brokers: list[int]) -> tuple[dict, dict]:
    """(current, proposed) for every partition of ``topics`` over ``brokers``."""
    known = set(admin.broker_ids())
    unknown = sorted(set(brokers) - known)
    if unknown:
        raise OperationError(f"Broker(s) {unknown} in --broker-list are not in the cluster "
                             f"(brokers: {sorted(known)})")
    current = current_assignment(admin, topics)
    return current, balanced(current, brokers)


def rollback_path(now_s: float | None = None) -> str:
    from kcli.xdg import state_dir

    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(now_s if now_s is not None else time.time()))
    return os.path.join(state_dir("reassign"), f"rollback-{stamp}-{os.getpid()}.json")


def write_rollback(path: str, current: dict[TP, list[int]], log_dirs: dict | None = None) -> None:
    """The rollback plan (``current``: the replicas before the moves), written whole (fsynced,
    then renamed into place) before any change."""
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        f.write(plan_json(current, log_dirs) + "\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(path + ".tmp", path)


def set_throttles(admin: Admin, plan: dict[TP, list[int]], current: dict[TP, list[int]],
                  moving: list[Reassignment], rate: int) -> list[int]:
    """The topics' throttled-replica lists and the rate (bytes/s) on every broker involved
    (``throttles``); those brokers."""
    configs, brokers = throttles(plan, current, moving)
    for topic, lists in sorted(configs.items()):
        admin.alter_configs("topic", topic, {k: v for k, v in lists.items() if v}, [])
    for broker in brokers:
        admin.alter_configs("broker", str(broker), {k: str(rate) for k in THROTTLE_RATES}, [])
    return brokers


def execute(admin: Admin, plan: dict[TP, list[int]], throttle: int | None,
            rollback_file: str | None = None, additional: bool = False
            ) -> tuple[str, dict[TP, BrokerError | None]]:
    """Write the rollback plan (the current replicas), set the throttles (``throttle`` bytes/s)
    and start the moves: (rollback file, each partition's outcome). Refused while a reassignment
    is in progress, unless ``additional`` (as kafka-reassign-partitions refuses it)."""
    moving = admin.list_reassignments()
    if moving and not additional:
        shown = ", ".join(f"{r.topic}-{r.partition}" for r in moving[:5]) + (" ..." if len(moving) > 5 else "")
        raise OperationError(f"Reassignments are in progress ({shown}): wait for them (--verify --wait), "
                             "cancel them, or add --additional to start this plan beside them")
    current = current_assignment(admin, [t for t, _ in plan])
    missing = sorted(tp for tp in plan if tp not in current)
    if missing:
        raise OperationError("Partition(s) not found: " + ", ".join(f"{t}-{p}" for t, p in missing))
    known = set(admin.broker_ids())
    unknown = sorted({r for rs in plan.values() for r in rs} - known)
    if unknown:
        raise OperationError(f"Broker(s) {unknown} in the plan are not in the cluster")
    path = rollback_file or rollback_path()
    write_rollback(path, {tp: current[tp] for tp in plan})
    if throttle is not None:
        set_throttles(admin, plan, current, moving, throttle)
    return path, admin.alter_reassignments(dict(plan))


def start(admin: Admin, plan: dict[TP, list[int]], allow_rf_change: bool = True) -> dict[TP, BrokerError | None]:
    """AlterPartitionReassignments: each partition's move started, or its error."""
    return admin.alter_reassignments(dict(plan), allow_rf_change)


def usable_brokers(admin: Admin, brokers: list[int]) -> list:
    """The cluster's brokers (BrokerInfo, with their racks) that ``brokers`` names."""
    wanted = set(brokers)
    return [b for b in admin.describe_cluster().brokers if b.node_id in wanted]


def log_dir_states(admin: Admin, targets: dict[tuple[str, int, int], str]) -> dict:
    """Each named replica's log dirs now (DescribeLogDirs to the live brokers): (topic, partition,
    broker) -> {"current": dir, "future": dir} (either may be missing), or None where the broker
    holds no replica of it."""
    found: dict = {}
    for r in admin.describe_log_dirs(sorted({b for _, _, b in targets} & set(admin.broker_ids()))):
        if (r.topic, r.partition, r.broker) in targets:
            found.setdefault((r.topic, r.partition, r.broker), {})["future" if r.future else "current"] = r.log_dir
    return {key: found.get(key) for key in targets}


def progress(admin: Admin, plan: dict[TP, list[int]]) -> dict[TP, tuple[str, list[int], list[int]]]:
    """Each planned partition: ("complete" | "in progress" | "failed", its replicas now, the
    adding replicas in sync)."""
    ongoing = {(r.topic, r.partition): r for r in admin.list_reassignments(sorted(plan))}
    topics = {t.name: t for t in existing_topics(admin, [t for t, _ in plan])}
    out = {}
    for (t, p), target in sorted(plan.items()):
        info = next((x for x in topics[t].partitions if x.partition == p), None) if t in topics else None
        replicas = list(info.replicas) if info else []
        if (t, p) in ongoing:
            adding = ongoing[(t, p)].adding
            out[(t, p)] = ("in progress", replicas, [r for r in adding if info and r in info.isr])
        else:
            out[(t, p)] = ("complete" if replicas == target else "failed", replicas, [])
    return out


def verify(admin: Admin, plan: dict[TP, list[int]], until: float | None = None, on_progress=None
           ) -> dict[TP, tuple[str, list[int], list[int]]]:
    """Each planned partition's state (``progress``); with ``until`` (a monotonic deadline), asked
    again every half second until every one is complete, ``on_progress`` given the others each
    time. A replica set that differs with no move in progress is waited for too: a broker's
    metadata follows the controller's a moment later."""
    states = progress(admin, plan)
    while until is not None and any(s != "complete" for s, _, _ in states.values()):
        if on_progress is not None:
            on_progress({tp: v for tp, v in states.items() if v[0] != "complete"})
        if time.monotonic() + 0.5 > until:
            break
        time.sleep(0.5)
        states = progress(admin, plan)
    return states


def clear_throttles(admin: Admin, topics: list[str]) -> list[int]:
    """Remove the reassignment throttles: the topics' throttled-replica lists and every broker's
    throttle rates (as kafka-reassign-partitions --verify does once every move is done)."""
    for topic in sorted(set(topics)):
        admin.alter_configs("topic", topic, {}, list(THROTTLED_REPLICAS))
    brokers = admin.broker_ids()
    for broker in brokers:
        admin.alter_configs("broker", str(broker), {}, [*THROTTLE_RATES, LOG_DIR_THROTTLE])
    return sorted(brokers)


def ongoing(admin: Admin) -> list[Reassignment]:
    """Every reassignment in progress in the cluster."""
    return admin.list_reassignments()


def cancel(admin: Admin, plan: dict[TP, list[int]]) -> dict[TP, BrokerError | None]:
    return admin.alter_reassignments({tp: None for tp in plan})


def cancel_moving(admin: Admin, partitions: list[TP]) -> tuple[list[TP], dict[TP, BrokerError | None]]:
    """kafka-reassign-partitions --cancel: of ``partitions``, those with replicas being added or
    removed (ListPartitionReassignments), and each one's outcome of the cancel (none: nothing
    sent)."""
    moving = sorted((r.topic, r.partition) for r in admin.list_reassignments(sorted(set(partitions)))
                    if r.adding or r.removing)
    return moving, (admin.alter_reassignments({tp: None for tp in moving}) if moving else {})


# -- leader elections ---------------------------------------------------------------------------

def unclean_choice(replicas: Sequence[int], isr: Sequence[int], elr: Sequence[int] | None,
                   live: set[int] | frozenset[int]) -> tuple[int | None, bool]:
    """The replica an unclean election gives a partition with no leader, as Kafka's controller
    chooses it (PartitionChangeBuilder.electAnyLeader): the first replica in assignment order
    that is live and in sync (in the ISR, or in the ELR where the ISR is empty): a clean choice;
    else the first live replica in assignment order: unclean, it may lack records the last
    leader had. (replica, clean); (None, False) where no replica is live."""
    in_sync = set(isr) if isr else set(elr or ())
    for r in replicas:
        if r in live and r in in_sync:
            return r, True
    return next((r for r in replicas if r in live), None), False


def election_candidates(admin: Admin, topics: list[str] | None, unclean: bool,
                        partitions: set[int] | None = None) -> list[ElectionCandidate]:
    """Each partition an election would change (of ``partitions`` where given): the preferred
    replica where it is in sync and not leading; for ``unclean``, where the partition has no
    leader, the replica ``unclean_choice`` gives it. Where that replica is out of sync, what the
    election may lose: the offline in-sync replicas, and the log end offsets of the live replicas
    (each asked of its own broker), the new leader's and the highest."""
    names = topics or admin.topic_names()
    out: list[ElectionCandidate] = []
    live = frozenset(admin.broker_ids()) if unclean else frozenset()
    replicas: dict[TP, list[int]] = {}
    for t in sorted(admin.describe_topics(sorted(set(names))), key=lambda t: t.name):
        for p in t.partitions:
            if partitions is not None and p.partition not in partitions:
                continue
            if unclean:
                if p.leader is None or p.leader < 0:
                    replicas[(t.name, p.partition)] = list(p.replicas)
                    new, clean = unclean_choice(p.replicas, p.isr, p.elr, live)
                    in_sync = p.isr or p.elr or p.last_known_elr or p.replicas   # any, if none named
                    out.append(ElectionCandidate(t.name, p.partition, None, new, clean,
                                                 [] if clean else [r for r in in_sync if r not in live]))
            elif p.replicas and p.leader != p.replicas[0] and p.replicas[0] in p.isr:
                out.append(ElectionCandidate(t.name, p.partition, p.leader, p.replicas[0]))
    risky = [c for c in out if not c.clean and c.proposed is not None]
    if risky:
        wanted: dict[int, list[TP]] = {}
        for c in risky:
            for r in replicas[(c.topic, c.partition)]:
                if r in live:
                    wanted.setdefault(r, []).append((c.topic, c.partition))
        by_partition: dict[TP, list[tuple[int, int]]] = {}
        for (topic, index, broker), end in admin.replica_log_ends(wanted).items():
            if end is not None:
                by_partition.setdefault((topic, index), []).append((end, broker))
        for c in risky:
            known = by_partition.get((c.topic, c.partition), [])
            c.proposed_end = next((end for end, b in known if b == c.proposed), None)
            if known:
                c.highest_end, c.highest_end_on = max(known, key=lambda x: (x[0], -x[1]))
    return out


def elect(admin: Admin, unclean: bool, partitions: list[TP]) -> dict[TP, BrokerError | None]:
    return admin.elect_leaders(unclean, partitions) if partitions else {}


def elect_as_asked(admin: Admin, unclean: bool, partitions: list[TP] | None) -> dict[TP, BrokerError | None]:
    """One ElectLeaders as kafka-leader-election sends it: the partitions named, or (None) every
    partition, for which the controller answers only those it elected or failed to."""
    return admin.elect_leaders(unclean, partitions)

"""describe cluster's view: one row per broker (ID, HOST, PORT, RACK, FENCED, CONTROLLER) after
the cluster id, then the finalized feature levels and the metadata quorum (kafka-metadata-quorum
describe --status's figures, --replication's rows; in the table and JSON only); JSON schema
``kcli.cluster/v1``; ``plain`` as kafka-cluster cluster-id and kafka-broker-api-versions name the
parts (``Cluster ID: X``, then ``host:port (id: N rack: R)``)."""

from __future__ import annotations

from kcli.model import ApiSupport, ClusterDescription, QuorumDescription, QuorumReplica
from kcli.render.output import NULL, Output, Table, json_document, null, time_cell
from kcli.times import time_field

COLUMNS = ["ID", "HOST", "PORT", "RACK", "FENCED", "CONTROLLER"]
# kafka-metadata-quorum describe --replication's columns
QUORUM_COLUMNS = ["NODE", "DIRECTORY-ID", "LOG-END-OFFSET", "LAG", "LAST-FETCH", "LAST-CAUGHT-UP", "STATUS"]
NO_DIRECTORY = "AAAAAAAAAAAAAAAAAAAAAA"          # Uuid.ZERO_UUID: a static voter's


def quorum_rows(q: QuorumDescription) -> list[tuple[QuorumReplica, str]]:
    """The leader, the other voters (Followers), then the observers: --replication's order."""
    leader = [v for v in q.voters if v.node_id == q.leader_id]
    return ([(v, "Leader") for v in leader] + [(v, "Follower") for v in q.voters if v.node_id != q.leader_id]
            + [(o, "Observer") for o in q.observers])


def _quorum_json(q: QuorumDescription) -> dict:
    lag, lag_ms = q.max_follower_lag()
    return {"leaderId": q.leader_id, "leaderEpoch": q.leader_epoch, "highWatermark": q.high_watermark,
            "maxFollowerLag": lag, "maxFollowerLagTimeMs": lag_ms, "replicas": [
                {"id": r.node_id, "status": status,
                 "directoryId": None if r.directory_id == NO_DIRECTORY else r.directory_id,
                 "logEndOffset": r.log_end_offset, "lag": q.lag(r),
                 "lastFetch": time_field(r.last_fetch_ms), "lastCaughtUp": time_field(r.last_caught_up_ms),
                 "endpoints": q.endpoints.get(r.node_id, [])} for r, status in quorum_rows(q)]}


# -- kafka-metadata-quorum describe (MetadataQuorumCommand's text) ------------------------------

class RelativeTimeError(Exception):
    """MetadataQuorumCommand.relativeTimeMs: a time after now, or not after the epoch."""


def _voter_list(q: QuorumDescription, replicas: list[QuorumReplica]) -> str:
    """printReplicaState: ``[{"id": 1, "directoryId": "...", "endpoints": ["C://host:port"]}, ...]``,
    the directory id left out where it is none, the endpoints where there are none."""
    def node(r: QuorumReplica) -> str:
        text = f'{{"id": {r.node_id}'
        if r.directory_id != NO_DIRECTORY:
            text += f', "directoryId": "{r.directory_id}"'
        endpoints = q.endpoints.get(r.node_id, [])
        if endpoints:
            text += ', "endpoints": [' + ", ".join(f'"{e}"' for e in endpoints) + "]"
        return text + "}"
    return "[" + ", ".join(node(r) for r in replicas) + "]"


def quorum_status(cluster_id: str | None, q: QuorumDescription) -> str:
    lag, lag_ms = q.max_follower_lag()
    return (f"ClusterId:              {cluster_id}\n"
            f"LeaderId:               {q.leader_id}\n"
            f"LeaderEpoch:            {q.leader_epoch}\n"
            f"HighWatermark:          {q.high_watermark}\n"
            f"MaxFollowerLag:         {lag}\n"
            f"MaxFollowerLagTimeMs:   {-1 if lag_ms is None else lag_ms}\n"
            f"CurrentVoters:          {_voter_list(q, q.voters)}\n"
            f"CurrentObservers:       {_voter_list(q, q.observers)}\n")


def _relative(ms: int, now_ms: int, what: str) -> str:
    if not 0 < ms <= now_ms:
        raise RelativeTimeError(f"Error while computing relative time, possible drift in system clock.\n"
                                f"Current timestamp is {now_ms}, {what} timestamp is {ms}")
    return f"{now_ms - ms} ms ago"


def quorum_replication(q: QuorumDescription, human_readable: bool, now_ms: int | None = None) -> str:
    """describe --replication's table (ToolsUtils.prettyPrintTable): -1 for an unknown time,
    ``N ms ago`` with --human-readable (against ``now_ms``, the local clock by default)."""
    import time

    from kcli.render.transactions import java_table

    now = int(time.time() * 1000) if now_ms is None else now_ms

    def shown(ms: int | None, what: str) -> str:
        if ms is None:
            return "-1"
        return _relative(ms, now, what) if human_readable else str(ms)

    rows = [[str(r.node_id), r.directory_id, str(r.log_end_offset), str(q.lag(r)),
             shown(r.last_fetch_ms, "last fetch"), shown(r.last_caught_up_ms, "last caught up"), status]
            for r, status in quorum_rows(q)]
    return java_table(["NodeId", "DirectoryId", "LogEndOffset", "Lag", "LastFetchTimestamp",
                       "LastCaughtUpTimestamp", "Status"], rows)


def _render_quorum(out: Output, c: ClusterDescription) -> None:
    q = c.quorum
    if q is None:
        out.prose(f"Metadata quorum: {c.quorum_note}")
        return
    lag, lag_ms = q.max_follower_lag()
    out.prose(f"Metadata quorum: leader {q.leader_id}, epoch {q.leader_epoch}, high watermark "
              f"{q.high_watermark}, max follower lag {lag} ({'?' if lag_ms is None else lag_ms} ms)")
    table = Table(list(QUORUM_COLUMNS))
    table.rows = [[str(r.node_id), NULL if r.directory_id == NO_DIRECTORY else r.directory_id,
                   str(r.log_end_offset), str(q.lag(r)), time_cell(r.last_fetch_ms),
                   time_cell(r.last_caught_up_ms), status] for r, status in quorum_rows(q)]
    out.view(table)


def _level(c: ClusterDescription, name: str) -> int | None:
    """A feature's finalized level: 0 when the broker lists finalized features but not this one
    (a feature finalized at 0 is left out, KIP-584); None when it lists none."""
    return c.finalized_features.get(name, 0) if c.finalized_features else None


def render_cluster(out: Output, c: ClusterDescription) -> None:
    if out.format == "json":
        out.json(json_document("cluster", clusterId=c.cluster_id, controllerId=c.controller_id, brokers=[
            {"id": b.node_id, "host": b.host, "port": b.port, "rack": b.rack,
             "fenced": b.fenced if c.fenced_known else None} for b in c.brokers],
            features=[{"name": name, "finalizedLevel": _level(c, name),
                       "supportedMin": lo, "supportedMax": hi}
                      for name, (lo, hi) in sorted(c.supported_features.items())],
            quorum=None if c.quorum is None else _quorum_json(c.quorum), quorumNote=c.quorum_note))
        return
    if out.format == "plain":
        out.line(f"Cluster ID: {c.cluster_id}")
        for b in c.brokers:
            out.line(f"{b.host}:{b.port} (id: {b.node_id} rack: {b.rack if b.rack is not None else 'null'})")
        return
    table = Table(list(COLUMNS))
    unknown = null("?")
    table.rows = [[str(b.node_id), b.host, str(b.port), b.rack or NULL,
                   ("yes" if b.fenced else "no") if c.fenced_known else unknown,
                   "yes" if b.node_id == c.controller_id else "no"] for b in c.brokers]
    if out.format == "table":
        out.prose(f"Cluster ID: {c.cluster_id or '-'}   Controller: "
                  f"{c.controller_id if c.controller_id is not None else 'none'}")
    out.view(table)
    if out.format == "table" and c.finalized_features:
        names = sorted({*c.supported_features, *c.finalized_features})
        out.prose("Finalized features: " + ", ".join(f"{name}={_level(c, name)}" for name in names))
    if out.format == "table":
        _render_quorum(out, c)



def render_api_versions(out: Output, apis: list[ApiSupport]) -> None:
    """One row per API kcli sends: who sends it, the version a kcli feature needs (its KIP), and
    each broker's range, ``!`` after one short of it (``-``: no such API there)."""
    if out.format == "json":
        out.json(json_document("api-versions", apis=[
            {"apiKey": a.api_key, "api": a.api, "sentBy": a.sent_by,
             "needs": None if a.needs is None else {"version": a.needs[0], "for": a.needs[1]},
             "brokers": [{"id": b, "min": None if r is None else r[0], "max": None if r is None else r[1],
                          "short": short} for b, r, short in a.brokers]} for a in apis]))
        return
    brokers = [b for b, _, _ in apis[0].brokers] if apis else []
    table = Table(["API", "KEY", "SENT-BY", "NEEDS", *[f"BROKER-{b}" for b in brokers]])
    for a in apis:
        cells = ["-" if r is None else f"{r[0]}-{r[1]}" + (" !" if short else "") for _, r, short in a.brokers]
        table.add([a.api, str(a.api_key), a.sent_by, NULL if a.needs is None else f"v{a.needs[0]} {a.needs[1]}",
                   *cells])
    out.view(table)

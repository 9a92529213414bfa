"""describe cluster's view: one row per broker (ID, HOST, PORT, RACK, FENCED, CONTROLLER) after
the cluster id; JSON schema ``kcli.cluster/v1``; ``plain`` as kafka-cluster cluster-id and
kafka-broker-api-versions name the parts (``Cluster ID: X``, then ``host:port (id: N rack: R)``)."""

from __future__ import annotations

from kcli.model import ClusterDescription
from kcli.render.output import NULL, Output, Table, json_document, null

COLUMNS = ["ID", "HOST", "PORT", "RACK", "FENCED", "CONTROLLER"]


def render_cluster(out: Output, c: ClusterDescription) -> None:
    if out.format == "json":
        out.json(json_document("cluster", clusterId=c.cluster_id, controllerId=c.controller_id, brokers=[
            {"id": b.node_id, "host": b.host, "port": b.port, "rack": b.rack,
             "fenced": b.fenced if c.fenced_known else None} for b in c.brokers]))
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

"""kcli's native group commands on share groups (KIP-932) on real Apache Kafka 4.4 and the embedded broker, with members
from an unmodified KafkaShareConsumer (tests/support/share_app.py): list groups --type share,
describe groups (start offsets, the broker's lag, the lag in time of the record at the start
offset; members; state; --all-groups), reset-offsets (a dry run by default, a rollback file
that is an exact undo, a group with members refused), delete-offsets and delete groups, kcli lag
and kcli lag serve. ``BOOTSTRAPS`` names the clusters: real Kafka 4.4 and the embedded broker."""

from __future__ import annotations

import csv
import json

import pytest

from tests.support.clients import create_topic, produce
from tests.support.run import run_kcli
from tests.support.share_app import ShareMember, stopped_member

BOOTSTRAPS = ["apache_kafka", "embedded_share"]


@pytest.fixture(scope="module", params=BOOTSTRAPS)
def share(request):
    """A topic of 2 partitions with 5 records each (timestamps now), a share group ``idle``
    (Empty, offsets 0-1 of each partition accepted) and ``busy`` (a member that accepted every
    record), ``busy``'s member running for the module."""
    b = request.getfixturevalue(request.param).bootstrap_servers
    topic, idle, busy = "native-share-in", "native-share-idle", "native-share-busy"
    create_topic(b, topic, partitions=2)
    produce(b, topic, [(p, f"v{p}-{i}") for p in range(2) for i in range(5)])
    stopped_member(b, topic, idle, 2, 4)
    member = ShareMember(b, topic, busy, 5, 10)
    try:
        yield b, topic, idle, busy
    finally:
        member.stop()


def kcli_json(b, *args):
    r = run_kcli(b, "-o", "json", *args)
    assert r.code == 0, r
    return json.loads(r.out)


def start_offsets(b, group) -> dict[tuple[str, int], int | None]:
    (g,) = kcli_json(b, "describe", "groups", group)["groups"]
    return {(p["topic"], p["partition"]): p["startOffset"] for p in g["partitions"]}


def test_list_groups_type_share_names_the_share_groups(share):
    b, _, idle, busy = share
    listed = kcli_json(b, "list", "groups", "--type", "share", "--state")
    rows = {g["group"]: (g["type"], g["state"]) for g in listed["groups"] if g["group"] in (idle, busy)}
    assert rows == {idle: ("Share", "Empty"), busy: ("Share", "Stable")}
    consumer_only = kcli_json(b, "list", "groups", "--type", "consumer")
    assert not {idle, busy} & {g["group"] for g in consumer_only["groups"]}


def test_describe_a_share_group_shows_start_offsets_lag_and_time_lag(share):
    b, topic, idle, _ = share
    doc = kcli_json(b, "describe", "groups", idle)
    assert doc["schema"] == "kcli.share-group-offsets/v1"
    (g,) = doc["groups"]
    parts = {p["partition"]: p for p in g["partitions"]}
    assert set(parts) == {0, 1} and all(p["topic"] == topic and p["logEndOffset"] == 5 for p in parts.values())
    assert all(p["lag"] == 3 for p in parts.values()), parts             # 2 of 5 accepted on each
    # the record at the start offset is one produced by the fixture: its time lag is known
    assert all(p["timeLagError"] is None and p["timeLagMs"] >= 0 for p in parts.values() if p["startOffset"] < 5)
    plain = run_kcli(b, "-o", "plain", "describe", "groups", idle)
    assert plain.code == 0 and plain.out.splitlines()[1].split() == ["GROUP", "TOPIC", "PARTITION", "START-OFFSET",
                                                                      "LAG"]


def test_describe_members_and_state_of_a_share_group(share):
    b, topic, _, busy = share
    (g,) = kcli_json(b, "describe", "groups", busy, "--members")["groups"]
    (m,) = g["members"]
    assert m["clientId"] == f"{busy}-member" and sorted((a["topic"], a["partition"]) for a in m["assignment"]) == [
        (topic, 0), (topic, 1)]
    (s,) = kcli_json(b, "describe", "groups", busy, "--state")["groups"]
    assert (s["type"], s["state"], s["members"]) == ("Share", "Stable", 1)


def test_describe_all_groups_covers_share_groups(share):
    b, _, idle, busy = share
    r = run_kcli(b, "-o", "plain", "describe", "groups", "--all-groups", "--state")
    assert r.code == 0, r
    assert f"\n{idle} " in r.out and f"\n{busy} " in r.out


def test_a_share_group_reset_is_a_dry_run_then_an_exact_undo(share, tmp_path):
    """The rollback file restores the start offsets exactly (the state of the records past them,
    their acknowledgements, is no offset and is not restored). A group of its own: the other
    tests read ``idle``'s lag."""
    b, topic, _, _ = share
    idle = "native-share-reset"
    stopped_member(b, topic, idle, 2, 4)
    before = start_offsets(b, idle)
    dry = run_kcli(b, "-o", "csv", "reset-offsets", "--group", idle, "--topic", topic, "--to-latest")
    assert dry.code == 0, dry
    assert start_offsets(b, idle) == before                              # nothing changed
    rollback = tmp_path / "rollback.csv"
    done = run_kcli(b, "reset-offsets", "--group", idle, "--topic", topic, "--to-latest", "--execute",
                    "--allow-skip", "--rollback-file", str(rollback))
    assert done.code == 0, done
    assert start_offsets(b, idle) == {(topic, 0): 5, (topic, 1): 5}
    rows = list(csv.reader(rollback.read_text().splitlines()))
    assert {(t, int(p)): int(o) for *_, t, p, o in rows if p.isdigit()} == before
    undo = run_kcli(b, "reset-offsets", "--group", idle, "--from-file", str(rollback), "--execute", "--allow-skip")
    assert undo.code == 0, undo
    assert start_offsets(b, idle) == before


def test_a_share_group_with_members_is_not_reset(share):
    b, topic, _, busy = share
    before = start_offsets(b, busy)
    r = run_kcli(b, "reset-offsets", "--group", busy, "--topic", topic, "--to-earliest", "--execute")
    assert r.code != 0 and busy in r.err, r
    assert start_offsets(b, busy) == before


def test_delete_offsets_and_delete_a_share_group(share):
    b, topic, _, _ = share
    group = "native-share-deletable"
    stopped_member(b, topic, group, 1, 2)
    partial = run_kcli(b, "delete-offsets", "--group", group, "--topic", f"{topic}:0")
    assert partial.code == 2 and "per topic" in partial.err, partial
    r = run_kcli(b, "-o", "json", "delete-offsets", "--group", group, "--topic", topic)
    assert r.code == 0, r
    assert [p["error"] for p in json.loads(r.out)["partitions"]] == [None]
    (g,) = kcli_json(b, "describe", "groups", group)["groups"]
    assert g["partitions"] == []
    gone = run_kcli(b, "delete", "groups", group)
    assert gone.code == 0, gone
    listed = kcli_json(b, "list", "groups", "--type", "share")
    assert group not in {x["group"] for x in listed["groups"]}


def test_the_lag_views_cover_share_groups(share):
    """kcli lag (the lag service's collection): a share group is a group of type share, its lag
    the log end minus the start offset, its lag in time that of the record at the start offset."""
    b, topic, idle, busy = share
    r = run_kcli(b, "-o", "json", "lag", "--by", "partition", idle, busy)
    assert r.code == 0, r
    got = {(x["group"], x["partition"]): x for x in json.loads(r.out)["lines"]}
    assert set(got) == {(g, p) for g in (idle, busy) for p in (0, 1)}
    by_group = run_kcli(b, "-o", "json", "lag", idle, busy)
    assert by_group.code == 0, by_group
    assert {(x["group"], x["type"], x["state"]) for x in json.loads(by_group.out)["lines"]} == {
        (idle, "share", "Empty"), (busy, "share", "Stable")}
    starts = start_offsets(b, idle)
    for p in (0, 1):
        assert got[(idle, p)]["lag"] == 5 - starts[(topic, p)]
        if starts[(topic, p)] < 5:
            assert got[(idle, p)]["timeLagMs"] > 0


def test_lag_serve_exports_share_groups(share):
    """kcli lag serve: a share group's series, group_type share, its lag per share-partition."""
    from tests.support.lag_serve import LagServe

    b, topic, idle, busy = share
    starts = start_offsets(b, idle)
    with LagServe(b, "--interval", "500ms", "--group", "native-share-(idle|busy)", timeout="10s") as s:
        found = s.wait_collections(1)
        assert s.value("kcli_consumergroup_group_members", found, group=busy, group_type="share") == 1
        assert s.value("kcli_consumergroup_group_members", found, group=idle, group_type="share") == 0
        for p in (0, 1):
            assert s.value("kafka_consumergroup_group_lag", found, group=idle, topic=topic,
                           partition=str(p)) == 5 - starts[(topic, p)]

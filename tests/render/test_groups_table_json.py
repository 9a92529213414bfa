"""Group views as tables and JSON (stable field names, both ms and ISO for times)."""

import io
import json

from kcli.model import NO_PLAN, BrokerInfo, GroupDescription, GroupOffsetRow, GroupPlan, PartitionPlan, PlanWarning
from kcli.render import groups as view
from kcli.render.output import Output


def render(fn, *args, fmt, **kw):
    o = Output(fmt, stdout=io.StringIO(), stderr=io.StringIO())
    fn(o, *args, **kw)
    return o.stdout.getvalue()


def test_plan_table_columns_for_time_and_max_age():
    plans = [GroupPlan("g", [PartitionPlan("g", "t", 0, 10, 0, 0, 20, 1_736_937_000_000, None),
                             PartitionPlan("g", "t", 1, None, 5, 0, 5, None, None)])]
    text = render(view.render_plan, plans, fmt="csv", time_scenario=True, with_rule=False,
                  scenario="to-start-time", executed=False, rollback_file=None)
    assert text.splitlines() == [
        "GROUP,TOPIC,PARTITION,CURRENT-OFFSET,NEW-OFFSET,DELTA,LOG-START,LOG-END,RECORD-TIMESTAMP",
        "g,t,0,10,0,-10,0,20,2025-01-15T10:30:00.000Z",
        "g,t,1,,5,,0,5,"]                         # nulls are empty cells in CSV
    plans = [GroupPlan("g", [PartitionPlan("g", "t", 0, 3, 0, 0, 9, None, "earliest (hot, age 1s ≤ 1m)")])]
    text = render(view.render_plan, plans, fmt="csv", time_scenario=False, with_rule=True,
                  scenario="to-latest --max-age 1m", executed=False, rollback_file=None)
    assert text.splitlines()[0].endswith("LOG-END,RULE")
    assert text.splitlines()[1] == 'g,t,0,3,0,-3,0,9,"earliest (hot, age 1s ≤ 1m)"'


def test_plan_json():
    plans = [GroupPlan("g", [PartitionPlan("g", "t", 0, None, 7, 0, 9, 1000, None)], [PlanWarning(NO_PLAN, "g")])]
    doc = json.loads(render(view.render_plan, plans, fmt="json", time_scenario=True, with_rule=False,
                            scenario="to-datetime x", executed=True, rollback_file="/tmp/r.csv"))
    assert doc["schema"] == "kcli.reset-plan/v1"
    assert doc["executed"] is True and doc["rollbackFile"] == "/tmp/r.csv"
    assert doc["groups"][0]["partitions"][0] == {
        "topic": "t", "partition": 0, "currentOffset": None, "newOffset": 7, "delta": None, "skippedUnread": 0,
            "replayed": 0,
        "logStartOffset": 0, "logEndOffset": 9, "recordTimestampMs": 1000,
        "recordTimestamp": "1970-01-01T00:00:01.000Z"}
    assert doc["groups"][0]["warnings"] == ["No reset plan for group g found."]


def test_state_json_creation_time():
    d = GroupDescription("g", "Stable", "Consumer", "uniform", BrokerInfo(1, "h", 9092), [],
                         group_epoch=2, target_assignment_epoch=2, creation_time_ms=-1)
    doc = json.loads(render(view.render_state, [d], False, fmt="json"))
    g = doc["groups"][0]
    assert doc["schema"] == "kcli.group-state/v1"
    assert (g["groupCreationTimeMs"], g["groupCreationTime"], g["groupEpoch"]) == (None, None, 2)
    assert g["coordinator"] == {"id": 1, "host": "h", "port": 9092}


def test_offsets_table_total_lag_line():
    d = GroupDescription("g", "Stable", "Classic", "range", None, [])
    rows = [GroupOffsetRow("g", "t", 0, 1, 5), GroupOffsetRow("g", "t", 1, None, 5)]
    text = render(view.render_offsets, [(d, rows)], False, fmt="table")
    assert "Total lag of group 'g': 4" in text
    doc = json.loads(render(view.render_offsets, [(d, rows)], False, fmt="json"))
    assert doc["groups"][0]["totalLag"] == 4
    assert doc["groups"][0]["partitions"][1]["lag"] is None

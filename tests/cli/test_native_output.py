"""kcli's own views (not the drop-ins, whose text is Apache's: tests/parity) on the embedded
broker: `list groups` lists streams groups too; `describe groups --all-groups` prints each
group's notice next to its own view; tables off a terminal end no line in padding; CSV splits a
coordinator into host:port and id and holds data rows only; errors say what kcli knows, in the
names the user wrote."""

from __future__ import annotations

import csv
import io
import json

import pytest

from kcli.broker import EmbeddedCluster
from kcli.cli.main import run
from tests.support.clients import commit_groups, unique
from tests.support.run import run_dropin, run_kcli
from tests.support.streams_wire import streams_group_committed


@pytest.fixture(scope="module")
def ec():
    with EmbeddedCluster(nodes=1) as c:
        c.create_topic("orders", 2)
        yield c


def _csv(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def test_list_groups_lists_streams_groups_the_dropin_does_not(ec):
    b = ec.bootstrap_servers
    classic, app = unique("classic"), unique("app")
    commit_groups(b, [classic], {("orders", 0): 1})
    streams_group_committed(ec, app, "orders", 1)
    listed = json.loads(run_kcli(b, "list", "groups", "-o", "json").out)["groups"]
    types = {g["group"]: g["type"] for g in listed}
    assert types[classic] == "Classic" and types[app] == "Streams"
    table = run_kcli(b, "list", "groups")
    assert table.code == 0
    assert [line.split() for line in table.out.splitlines() if app in line] == [[app, "Streams", "Assigning"]]
    assert app in run_kcli(b, "list", "groups", "--type", "streams", "-o", "plain").out
    assert app not in run_kcli(b, "list", "groups", "--type", "classic", "-o", "plain").out
    java = run_dropin("kafka-consumer-groups", "--bootstrap-server", b, "--list")   # Java's list: no streams group
    assert java.code == 0 and classic in java.out.split() and app not in java.out


@pytest.mark.parametrize("view", [[], ["--members"], ["-o", "plain"], ["--state", "-o", "plain"]])
def test_all_groups_notice_comes_next_to_its_own_view(ec, view):
    """stdout and stderr one file (a terminal, 2>&1): each empty group's notice just before its
    view, as the Java tool prints them, not all of them screens above."""
    b = ec.bootstrap_servers
    groups = sorted(unique(f"empty{i}") for i in range(3))
    commit_groups(b, groups, {("orders", 0): 0})
    both = io.StringIO()
    assert run(["describe", "groups", "--all-groups", *view, "-b", b], both, both) == 0
    text = both.getvalue()
    for g in groups:
        notice = f"Consumer group '{g}' has no active members.\n"
        after = text[text.index(notice) + len(notice):]
        own = after[:after.index("has no active members.")] if "has no active members." in after else after
        assert f"{g} " in own.replace("\n", " ") or view == ["--members"], (g, text)
        header = next(line for line in own.splitlines() if line.strip())
        assert header.split()[0] == ("(none)" if view == ["--members"] else "GROUP"), (g, text)  # its own view
    out, err = io.StringIO(), io.StringIO()                  # two files: the same views on stdout
    assert run(["describe", "groups", *groups, *view, "-b", b], out, err) == 0
    assert [line for line in err.getvalue().splitlines() if line] == [
        f"Consumer group '{g}' has no active members." for g in groups]


def test_tables_off_a_terminal_end_no_line_in_padding(ec):
    b = ec.bootstrap_servers
    wide = unique("中文")                                  # a wide character: rich lays it out
    commit_groups(b, [unique("pad"), wide], {("orders", 0): 0, ("orders", 1): 0})
    for args in (["list", "groups"], ["describe", "groups", wide], ["describe", "topics"],
                 ["describe", "groups", wide, "--state"], ["list-offsets", "-t", "orders"]):
        r = run_kcli(b, *args)
        assert r.code == 0, (args, r.err)
        lines = r.out.splitlines()
        assert len(lines) >= 3 and not [line for line in lines if line != line.rstrip()], (args, r.out)
    assert wide in run_kcli(b, "list", "groups").out


def test_csv_has_the_coordinator_in_two_fields(ec):
    b = ec.bootstrap_servers
    group, app = unique("coord"), unique("app")
    commit_groups(b, [group], {("orders", 0): 1})
    streams_group_committed(ec, app, "orders", 1)
    port = b.rsplit(":", 1)[1]
    for g in (group, app):
        r = run_kcli(b, "describe", "groups", g, "--state", "-o", "csv")
        assert r.code == 0, r.err
        [row] = _csv(r.out)
        assert row["COORDINATOR"] == f"127.0.0.1:{port}" and row["COORDINATOR-ID"] == "1", r.out
        assert "COORDINATOR (ID)" not in row
    table = run_kcli(b, "describe", "groups", group, "--state")
    assert f"127.0.0.1:{port}  (1)" in table.out and "COORDINATOR (ID)" in table.out


def test_compare_csv_has_data_rows_only(ec):
    """The totals are in the table and in JSON, not among CSV's data rows."""
    b = ec.bootstrap_servers
    group = unique("compare")
    commit_groups(b, [group], {("orders", 0): 1})
    compare = run_kcli(b, "reset-offsets", "-g", group, "-t", "orders", "--compare", "-o", "csv")
    assert compare.code == 0, compare.err
    assert [(r["GROUP"], r["TOPIC"], r["PARTITION"]) for r in _csv(compare.out)] == [
        (group, "orders", "0"), (group, "orders", "1")]
    assert "(total)" in run_kcli(b, "reset-offsets", "-g", group, "-t", "orders", "--compare").out
    doc = json.loads(run_kcli(b, "reset-offsets", "-g", group, "-t", "orders", "--compare", "-o", "json").out)
    assert all("totalSkipped" in p and "totalReplayed" in p for p in doc["policies"])


def test_a_partition_that_does_not_exist_is_named(ec):
    r = run_kcli(ec.bootstrap_servers, "list-offsets", "-t", "orders:99")
    assert (r.code, r.out) == (1, "")
    assert r.err == "Error: Partition orders-99 does not exist: topic orders has 2 partitions (0-1)\n"
    r = run_kcli(ec.bootstrap_servers, "list-offsets", "-t", "orders:5,7")
    assert "Partitions orders-5, orders-7 do not exist: topic orders has 2 partitions (0-1)" in r.err
    java = run_dropin("kafka-get-offsets", "--bootstrap-server", ec.bootstrap_servers, "--topic", "orders",
                      "--partitions", "99")
    assert java.err == "Error occurred: Could not match any topic-partitions with the specified filters\n"


def test_sasl_without_credentials_is_said_in_java_names(ec, tmp_path):
    """A --command-config file in Java's names (security.protocol, sasl.mechanism) without
    credentials: the error names sasl.jaas.config, not only librdkafka's sasl.username and
    sasl.password. Refused before any request (exit 2)."""
    config = tmp_path / "client.properties"
    config.write_text("security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\n")
    r = run_kcli(ec.bootstrap_servers, "list", "topics", "--command-config", str(config))
    assert r.code == 2 and r.out == ""
    assert r.err.startswith("Error: SASL/PLAIN needs a user name and password: sasl.jaas.config="
                            'org.apache.kafka.common.security.plain.PlainLoginModule required username="..." '
                            'password="...";'), r.err
    assert "must be set" not in r.err
    config.write_text("security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-512\nsasl.jaas.config="
                      "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"u\";\n")
    r = run_kcli(ec.bootstrap_servers, "list", "topics", "--command-config", str(config))
    assert r.code == 2 and "SASL/SCRAM-SHA-512 needs" in r.err and "no password given" in r.err, r.err


def test_deleting_a_group_that_does_not_exist_says_not_found(ec):
    b = ec.bootstrap_servers
    missing = unique("nosuch")
    r = run_kcli(b, "delete", "groups", missing)
    assert r.code == 1 and "Broker:" not in r.out
    assert [line.split(None, 1) for line in r.out.splitlines() if missing in line] == [
        [missing, f"Error: Group {missing} not found."]]
    doc = json.loads(run_kcli(b, "delete", "groups", missing, "-o", "json").out)
    assert doc["groups"] == [{"group": missing, "deleted": False, "error": "GROUP_ID_NOT_FOUND"}]
    java = run_dropin("kafka-consumer-groups", "--bootstrap-server", b, "--delete", "--group", missing)
    assert (f"* Group '{missing}' could not be deleted due to: "
            "org.apache.kafka.common.errors.GroupIdNotFoundException: The group id does not exist.") in java.out

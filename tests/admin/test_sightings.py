"""kcli's sightings of partitions (kcli.admin.sightings): first seen, last seen without; a
recreated topic's history dropped; an older answer never moves a bound."""

from kcli.admin import sightings


def test_growth_is_bounded_by_the_sightings_around_it():
    topics: dict = {}
    sightings.merge(topics, {"t": ("id1", 2)}, 100, 110)
    sightings.merge(topics, {"t": ("id1", 2)}, 200, 210)
    sightings.merge(topics, {"t": ("id1", 5)}, 300, 310)
    assert [sightings.bounds(topics, "t", p) for p in range(6)] == [
        (None, 110), (None, 110), (200, 310), (200, 310), (200, 310), None]


def test_an_older_answer_with_fewer_partitions_changes_nothing():
    topics: dict = {}
    sightings.merge(topics, {"t": (None, 3)}, 300, 310)
    assert not sightings.merge(topics, {"t": (None, 2)}, 200, 320)
    assert topics["t"]["count"] == 3


def test_a_recreated_topic_starts_over():
    topics: dict = {}
    sightings.merge(topics, {"t": ("id1", 4)}, 100, 110)
    sightings.merge(topics, {"t": ("id2", 4)}, 200, 210)           # another topic id
    assert sightings.bounds(topics, "t", 0) == (None, 210)
    sightings.merge(topics, {"t": (None, 1)}, 300, 310)             # fewer partitions, later
    assert sightings.bounds(topics, "t", 0) == (None, 310) and sightings.bounds(topics, "t", 1) is None


def test_the_file_round_trips_and_a_foreign_one_is_empty(tmp_path):
    path = str(tmp_path / "p" / "c.json")
    sightings.record(path, {"t": ("id", 2)}, 100, 110)
    assert sightings.bounds(sightings.load(path), "t", 1) == (None, 110)
    (tmp_path / "bad.json").write_text('{"version": 1, "topics": {"t": {"count": "x"}}}')
    assert sightings.load(str(tmp_path / "bad.json")) == {}

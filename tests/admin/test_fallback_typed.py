"""kcli.admin.fallback decides by the unreadable answer's API (``Answer.api``), a typed field,
never by the wording of the answer's name: a Warn line says which KIP field is unavailable for
exactly the APIs listed as KIP-only."""

from __future__ import annotations

from kcli.admin.fallback import or_librdkafka
from kcli.errors import Answer, UnreadableAnswer


class _Client:
    def __init__(self, answer):
        self.answer, self.lines, self._warned_keys = answer, [], set()

    def unreadable(self, exc, consequence, once=None):
        self.lines.append(consequence)

    @or_librdkafka("_fallback", kip_only={"DescribeTopicPartitions": "CreationTimeMs (KIP-1327)"})
    def read(self):
        raise UnreadableAnswer(self.answer, "garbled")

    def _fallback(self):
        return "librdkafka"


def test_a_kip_only_api_is_told_by_its_typed_name():
    client = _Client(Answer("DescribeTopicPartitions", 0))
    assert client.read() == "librdkafka"
    assert client.lines == ["CreationTimeMs (KIP-1327) unavailable, using librdkafka"]


def test_another_api_whose_name_starts_alike_is_a_plain_fallback():
    client = _Client(Answer("DescribeTopicPartitionsExtra", 0))
    assert client.read() == "librdkafka"
    assert client.lines == ["using librdkafka"]


def test_the_answer_prints_as_kafka_names_it():
    assert str(Answer("Metadata", 12)) == "MetadataResponse v12"
    assert str(UnreadableAnswer(Answer("Metadata", 12), "x", "MetadataRequest")) == (
        "MetadataRequest failed: the broker's MetadataResponse v12 could not be read by kcli's own client (x)")

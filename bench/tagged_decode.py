"""Decode time of a Metadata answer with a tag on every partition (v14's PartitionAgeMs) against
the same answer at v13 (no tags), for growing partition counts: kafka-python 3.0.12's generated
decoder copies the rest of the answer for each tagged struct (docs/upstream/README.md, patch 1),
so v14's time grows with the square of the partitions while v13's grows linearly.

    .venv/bin/python bench/tagged_decode.py [--partitions 10000 20000 40000] [--runs 3]
"""

from __future__ import annotations

import argparse
import time

import kcli.protocol as proto


def answer(version: int, partitions: int, per_topic: int = 100) -> bytes:
    """An encoded MetadataResponse of ``partitions`` partitions, ``per_topic`` to a topic."""
    Resp = proto.MetadataResponse
    Topic = Resp.MetadataResponseTopic
    Part = Topic.MetadataResponsePartition
    topics = []
    for t in range(partitions // per_topic):
        parts = [Part(version=version, error_code=0, partition_index=p, leader_id=1, leader_epoch=0,
                      replica_nodes=[1], isr_nodes=[1], offline_replicas=[],
                      **({"partition_age_ms": 1000 + p} if version >= 14 else {}))
                 for p in range(per_topic)]
        topics.append(Topic(version=version, error_code=0, name=f"topic-{t:05d}", topic_id=None,
                            is_internal=False, partitions=parts))
    resp = Resp(version=version, throttle_time_ms=0, brokers=[], cluster_id="c", controller_id=1,
                topics=topics)
    return resp.encode(version=version)


def decode_seconds(version: int, data: bytes, runs: int) -> float:
    """The fastest of ``runs`` decodes of ``data``, in seconds."""
    Resp = proto.MetadataResponse[version]
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        decoded = Resp.decode(data)
        best = min(best, time.perf_counter() - start)
    assert sum(len(t.partitions) for t in decoded.topics) == len(decoded.topics) * 100
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--partitions", type=int, nargs="+", default=[10_000, 20_000, 40_000])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    print(f"{'partitions':>10} {'bytes v14':>10} {'v13 s':>8} {'v14 s':>8} {'v14/v13':>8}")
    for n in args.partitions:
        v13, v14 = answer(13, n), answer(14, n)
        t13, t14 = decode_seconds(13, v13, args.runs), decode_seconds(14, v14, args.runs)
        print(f"{n:>10} {len(v14):>10} {t13:>8.3f} {t14:>8.3f} {t14 / t13:>8.1f}")


if __name__ == "__main__":
    main()

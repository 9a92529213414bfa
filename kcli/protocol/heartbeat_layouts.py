"""ConsumerGroupHeartbeatResponse v2's two layouts, as schemas that read an answer's bytes
(``kcli check broker``'s heartbeat-v2.layout; docs/kips.md, "KIP-1327 as accepted upstream"):

- ``accepted``: accepted KIP-1327's, v1 plus a tagged NewPartitions (tag 0) in each assigned
  topic; with kcli's tagged GroupCreationTimeMs (tag 1282), which such a client skips. It is
  kcli's own schema file plus NewPartitions;
- ``seed``: KIP-1282's seed, GroupCreationTimeMs an untagged int64 before Assignment.

Both are built from kcli's schema file, so they differ from it only where the layouts do."""

from __future__ import annotations

import copy
import io

from kafka.protocol.schemas.fields.struct import StructField
from kafka.protocol.schemas.load_json import load_json

from kcli.protocol import schemas

VERSION = 2
NEW_PARTITIONS = {"name": "NewPartitions", "type": "[]int32", "versions": "2+", "taggedVersions": "2+", "tag": 0,
                  "nullableVersions": "2+", "default": "null"}


def _layouts() -> dict[str, StructField]:
    own = load_json("ConsumerGroupHeartbeatResponse", package=schemas)
    accepted, seed = copy.deepcopy(own), copy.deepcopy(own)
    assignment = next(f for f in accepted["fields"] if f["name"] == "Assignment")
    assignment["fields"][0]["fields"].append(NEW_PARTITIONS)
    created = next(f for f in seed["fields"] if f["name"] == "GroupCreationTimeMs")
    for key in ("taggedVersions", "tag", "ignorable"):
        created.pop(key)                        # positional, where kcli's file has it: before Assignment
    return {"accepted": StructField(accepted), "seed": StructField(seed)}


LAYOUTS = _layouts()


def read(layout: str, body: bytes) -> tuple[dict | None, int]:
    """A v2 answer's body (after the response header) read with ``layout``: (its fields, the
    bytes left over), or (None, -1) when the layout cannot read it at all."""
    buffer = io.BytesIO(body)
    try:
        fields = LAYOUTS[layout].decode(buffer, version=VERSION, compact=True, tagged=True)
    except Exception:                           # noqa: BLE001 - any failure is "cannot read it"
        return None, -1
    return fields, len(body) - buffer.tell()

"""Request frames for fuzzing the broker, drawn from a seeded ``random.Random``.

``FrameMaker.frame()`` returns one framed request (size prefix included) of one of these kinds:

- "replayed": a request a real client sent (captured by the caller);
- "field-mutated": such a request with one field, at any depth, given a drawn value;
- "valid": a well-formed request of a served API and version, its fields drawn from the
  request's schema (kafka-python's field tree): the names the broker holds (topics, groups,
  topic ids) or unknown ones, edge integers (0, -1, minimum, maximum, small counts), nulls where
  the schema allows them (and now and then where it does not), empty and longer arrays, and
  record batches (valid, corrupt, random);
- "truncated", "bit-flipped", "overwritten" (bytes set to 0x00, 0x7f, 0xff: absurd lengths and
  counts), "extended" (garbage appended): mutations of a valid or captured request, the size
  prefix matching;
- "wrong size": such a request under a size prefix that does not match it;
- "wrong header": such a body under another API key or version;
- "random": random bytes, with or without a plausible header.

Everything derives from the generator's seed and the captured requests (which vary a little
from run to run with the real clients' timing), so the test prints the frames that failed.
"""

from __future__ import annotations

import random
import struct
import uuid

from kafka.record import MemoryRecordsBuilder

from kcli.protocol import REQUESTS

INT_RANGES = {"int8": (-2**7, 2**7 - 1), "int16": (-2**15, 2**15 - 1), "uint16": (0, 2**16 - 1),
              "int32": (-2**31, 2**31 - 1), "int64": (-2**63, 2**63 - 1)}
KINDS = ("valid", "valid", "field-mutated", "field-mutated", "replayed", "truncated",
         "bit-flipped", "overwritten", "extended", "wrong size", "wrong header", "random")


class FrameMaker:
    def __init__(self, rng: random.Random, served: dict[int, tuple[int, int]],
                 names: list[str], topic_ids: list[uuid.UUID], captured: list[bytes] = ()):
        self.rng = rng
        self.served = served                  # {api key: (min version, max version)}
        self.names = names                    # topics and groups the broker holds
        self.topic_ids = topic_ids
        self.captured = [f for f in captured  # real clients' requests (frames, no size prefix)
                         if struct.unpack_from(">h", f)[0] in served]
        self.correlation_id = 0

    # -- field values ----------------------------------------------------------------------

    def _int(self, type_str: str, name: str) -> int:
        lo, hi = INT_RANGES[type_str]
        r = self.rng.random()
        if any(w in name for w in ("timeout", "wait", "_ms", "interval")) and r < 0.8:
            return self.rng.randint(max(lo, 0), min(hi, 50))   # keep most requests unparked
        if r < 0.45:
            return self.rng.randint(max(lo, 0), min(hi, 3))
        if r < 0.6:
            return max(lo, -1)
        if r < 0.7:
            return lo
        if r < 0.8:
            return hi
        if r < 0.9:
            return self.rng.randint(lo, hi)
        return self.rng.choice([v for v in (-2, 10_001, 2**16, 2**31 - 1) if lo <= v <= hi])

    def _string(self) -> str:
        r = self.rng.random()
        if r < 0.5 and self.names:
            return self.rng.choice(self.names)
        if r < 0.6:
            return ""
        if r < 0.7:
            return "x" * self.rng.choice([249, 250, 1000])
        if r < 0.8:
            return self.rng.choice(["__consumer_offsets", ".", "..", "bad name", "-", "PLAIN",
                                    "cleanup.policy", "compact", "retention.ms", "consumer",
                                    "range", "uniform", "ñ"])
        return "".join(self.rng.choice("abcxyz._-0123") for _ in range(self.rng.randint(1, 12)))

    def _records(self) -> bytes:
        r = self.rng.random()
        if r < 0.2:
            return bytes(self.rng.getrandbits(8) for _ in range(self.rng.randint(0, 80)))
        builder = MemoryRecordsBuilder(magic=2, compression_type=self.rng.choice([0, 0, 1, 3]),
                                       batch_size=1 << 20)
        for i in range(self.rng.randint(1, 4)):
            key = None if self.rng.random() < 0.5 else b"k%d" % i
            builder.append(self.rng.choice([-1, 0, 1_700_000_000_000, 2**62]), key, b"v" * i)
        builder.close()
        data = bytearray(builder.buffer())
        if r > 0.85:                          # a corrupt batch: CRC, lengths or counts off
            for _ in range(self.rng.randint(1, 3)):
                data[self.rng.randrange(len(data))] = self.rng.choice([0, 0x7F, 0xFF])
        return bytes(data)

    def _simple(self, type_str: str, name: str):
        if type_str in INT_RANGES:
            return self._int(type_str, name)
        if type_str == "bool":
            return self.rng.random() < 0.5
        if type_str == "float64":
            return self.rng.choice([0.0, -1.0, 1e308, float("nan")])
        if type_str == "uuid":
            r = self.rng.random()
            if r < 0.5 and self.topic_ids:
                return self.rng.choice(self.topic_ids)
            return uuid.UUID(int=0) if r < 0.7 else uuid.UUID(int=self.rng.getrandbits(128))
        if type_str == "string":
            return self._string()
        if type_str == "records":
            return self._records()
        if type_str == "bytes":
            return bytes(self.rng.getrandbits(8) for _ in range(self.rng.choice([0, 1, 8, 30])))
        raise ValueError(type_str)

    def _count(self) -> int:
        return self.rng.choice([0, 1, 1, 1, 2, 2, 3, 6])

    def _value(self, field, version: int, depth: int):
        r = self.rng.random()
        if field.nullable_for_version_q(version) and r < 0.15:
            return None
        if r < 0.02 and (field.is_array() or field.is_struct()
                         or field.type_str in ("string", "bytes", "records")):
            return None              # null where the schema forbids it (encoded as length -1)
        if field.is_struct_array():
            return [self._struct(field, version, depth + 1)
                    for _ in range(self._count() if depth < 4 else 0)]
        if field.is_struct():
            return self._struct(field, version, depth + 1)
        if field.is_array():
            return [self._simple(field.array_of.type_str, field.name)
                    for _ in range(self._count())]
        return self._simple(field.type_str, field.name)

    def _struct(self, field, version: int, depth: int):
        values = {f.name: self._value(f, version, depth) for f in field.fields.values()
                  if f.for_version_q(version)
                  and (f.tag is None or self.rng.random() < 0.5)}
        return field.data_class(**values)

    # -- frames ----------------------------------------------------------------------------

    def valid(self, api_key: int | None = None) -> bytes:
        """A framed, well-formed request (at a served version), fields random."""
        for _ in range(20):                       # a drawn value the codec refuses: draw again
            key = api_key if api_key is not None else self.rng.choice(sorted(self.served))
            lo, hi = self.served[key]
            version = self.rng.randint(lo, hi)
            cls = REQUESTS[key]
            fields = {f.name: self._value(f, version, 0) for f in cls._struct.fields.values()
                      if f.for_version_q(version) and (f.tag is None or self.rng.random() < 0.5)}
            try:
                request = cls(version=version, **fields)
                self.correlation_id += 1
                request.with_header(correlation_id=self.correlation_id,
                                    client_id=None if self.rng.random() < 0.1 else "fuzz")
                return request.encode(version=version, header=True, framed=True)
            except (ValueError, TypeError, struct.error, OverflowError, UnicodeError):
                continue
        raise AssertionError(f"no encodable request for API {api_key}")

    def field_mutated(self) -> bytes:
        """A real client's request with one field (at any depth) given a drawn value: requests
        that reach deep into a handler's state (members, generations, offsets) with one thing
        wrong."""
        frame = self.rng.choice(self.captured)
        key, version = struct.unpack_from(">hh", frame)
        cls = REQUESTS[key]
        request = cls.decode(frame, version=version, header=True)
        spots = []                                  # (container, field) pairs, depth first

        def walk(container, struct_field):
            for f in struct_field.fields.values():
                if not f.for_version_q(version):
                    continue
                spots.append((container, f))
                value = getattr(container, f.name, None)
                if f.is_struct_array() and value:
                    for item in value:
                        walk(item, f)
                elif f.is_struct() and value is not None:
                    walk(value, f)
        walk(request, cls._struct)
        for _ in range(20):
            container, f = self.rng.choice(spots)
            setattr(container, f.name, self._value(f, version, 2))
            try:
                request.with_header(correlation_id=request.header.correlation_id,
                                    client_id=request.header.client_id)
                return request.encode(version=version, header=True, framed=True)
            except (ValueError, TypeError, struct.error, OverflowError, UnicodeError):
                continue
        raise AssertionError(f"no encodable mutation of API {key} v{version}")

    def frame(self) -> tuple[str, bytes]:
        kind = self.rng.choice(KINDS)
        rng = self.rng
        if kind in ("field-mutated", "replayed") and not self.captured:
            kind = "valid"
        if kind == "field-mutated":
            return kind, self.field_mutated()
        if kind == "replayed":
            frame = rng.choice(self.captured)
            return kind, struct.pack(">i", len(frame)) + frame
        if kind == "random":
            body = bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 120)))
            if rng.random() < 0.5:                # a served API's header, then noise
                key = rng.choice(sorted(self.served))
                body = struct.pack(">hhi", key, rng.randint(*self.served[key]), 1) + body
            return kind, struct.pack(">i", len(body)) + body
        if self.captured and rng.random() < 0.5:
            body = bytearray(rng.choice(self.captured))
        else:
            body = bytearray(self.valid()[4:])
        if kind == "truncated":
            body = body[:rng.randrange(len(body))]
        elif kind == "bit-flipped":
            for _ in range(rng.randint(1, 4)):
                body[rng.randrange(len(body))] ^= 1 << rng.randrange(8)
        elif kind == "overwritten":
            for _ in range(rng.randint(1, 3)):
                at = rng.randrange(8, len(body)) if len(body) > 8 else 0
                body[at:at + rng.choice([1, 2, 4])] = bytes([rng.choice([0, 0x7F, 0xFF])]) * \
                    rng.choice([1, 2, 4])
        elif kind == "extended":
            body += bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 40)))
        elif kind == "wrong size":
            size = rng.choice([len(body) - rng.randint(1, 8), len(body) + rng.randint(1, 8),
                               0, 7, -1, 2**31 - 1])
            return kind, struct.pack(">i", size) + bytes(body)
        elif kind == "wrong header":
            key = rng.choice(sorted(self.served) + [rng.randint(-5, 120)])
            struct.pack_into(">hh", body, 0, key, rng.randint(-1, 20))
        elif kind != "valid":
            raise ValueError(kind)
        return kind, struct.pack(">i", len(body)) + bytes(body)

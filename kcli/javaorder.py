"""The iteration order of a java.util.HashMap, so ``-o plain`` lists things in the order the Java
tools print them (kafka-topics' topics and config overrides, kafka-consumer-groups' group list,
reset plans and delete results all come out of HashMaps).

A HashMap's order is a function of its keys' hash codes, its table size and the order the keys
were put in: entries iterate bucket by bucket; within a bucket in the order they were put in (a
resize splits a bucket without reordering it), unless the bucket holds 9 or more keys in a table of
64 or more buckets, which Java keeps as a red-black tree (a "treeified" bin: its root first, then
each key after the one it was attached to). A bucket that fills up so in a smaller table doubles
the table instead. ``HashMapModel`` puts keys into such a table as java.util.HashMap does, bins,
resizes and trees included; no library reproduces this. It follows the JDK 17 sources
(``String.hashCode``, ``HashMap.hash``/``tableSizeFor``/``resize``/``treeifyBin``,
``HashMap.TreeNode``) and is checked against a JVM in the tests (tests/cli/test_javaorder.py).
"""

from __future__ import annotations

import struct

from kcli.model import GroupPlan
from kcli.datatypes import replace

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Hashable, Iterable, TypeVar

    V = TypeVar("V")

LOAD_FACTOR = 0.75
DEFAULT_CAPACITY = 16
TREEIFY_THRESHOLD = 8           # a bin that already holds this many keys becomes a tree...
MIN_TREEIFY_CAPACITY = 64       # ...in a table this large; a smaller table doubles instead
UNTREEIFY_THRESHOLD = 6         # a tree split by a resize down to this many keys is a list again


def _int32(value: int) -> int:
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value & 0x80000000 else value


def _units(text: str) -> bytes | list[int]:
    """The UTF-16 code units of ``text``: its bytes when ASCII (one unit each)."""
    if text.isascii():
        return text.encode()
    data = text.encode("utf-16-be", "surrogatepass")
    return [data[i] << 8 | data[i + 1] for i in range(0, len(data), 2)]


def string_hash(text: str) -> int:
    """java.lang.String.hashCode: over UTF-16 code units, 32-bit wrap-around."""
    h = 0
    for unit in _units(text):
        h = (31 * h + unit) & 0xFFFFFFFF
    return _int32(h)


def topic_partition_hash(topic: str, partition: int) -> int:
    """org.apache.kafka.common.TopicPartition.hashCode."""
    return _int32(31 * _int32(31 + partition) + string_hash(topic))


def spread(h: int) -> int:
    """HashMap.hash: the hash code's high half folded into its low half (a signed int)."""
    return _int32(h ^ ((h & 0xFFFFFFFF) >> 16))


def table_size_for(capacity: int) -> int:
    size = 1
    while size < capacity:
        size <<= 1
    return size


def _float32(value: float) -> float:
    return struct.unpack("f", struct.pack("f", value))[0]


def copy_initial(entries: int) -> int:
    """The initial capacity ``new HashMap<>(map)`` sizes itself for, for a map of ``entries``
    entries (HashMap.putMapEntries: ``(int) ((float) s / loadFactor + 1.0F)``, in float)."""
    return int(_float32(_float32(_float32(entries) / _float32(LOAD_FACTOR)) + 1.0))


class _Node:
    __slots__ = ("key", "hash", "left", "right", "parent", "red")

    def __init__(self, key: Hashable, h: int):
        self.key, self.hash = key, h
        self.left: _Node | None = None
        self.right: _Node | None = None
        self.parent: _Node | None = None
        self.red = False


class _Bin:
    """One bucket: its nodes in iteration order, and the root of its red-black tree when treeified."""

    __slots__ = ("nodes", "root")

    def __init__(self, nodes: list[_Node] | None = None):
        self.nodes: list[_Node] = nodes or []
        self.root: _Node | None = None


class HashMapModel:
    """The table of a java.util.HashMap that keys are put into, for its iteration order
    (``keys``). ``initial``: ``new HashMap<>(initial)``; None: ``new HashMap<>()``.
    ``hash_code`` is the keys' Java hashCode; ``compare`` orders two keys of equal hash in a tree
    bin as Comparable.compareTo does (None: not Comparable, as TopicPartition; Java then breaks a
    tie of equal hash codes by identity hash, which no model can know: this one goes left)."""

    def __init__(self, hash_code: Callable[[Any], int], initial: int | None = None,
                 compare: Callable[[Any, Any], int] | None = None):
        self._hash_code, self._compare = hash_code, compare
        self._capacity = DEFAULT_CAPACITY if initial is None else table_size_for(initial)
        self._table: list[_Bin] = []
        self._seen: set = set()

    def put(self, key: Hashable) -> None:
        if key in self._seen:                   # a key put again keeps its place
            return
        self._seen.add(key)
        if not self._table:
            self._table = [_Bin() for _ in range(self._capacity)]
        h = spread(self._hash_code(key))
        bucket = self._table[h & (len(self._table) - 1)]
        node = _Node(key, h)
        if bucket.root is not None:
            self._put_tree(bucket, bucket.root, node)
        else:
            bucket.nodes.append(node)
            if len(bucket.nodes) > TREEIFY_THRESHOLD:
                if len(self._table) < MIN_TREEIFY_CAPACITY:
                    self._resize()
                else:
                    self._treeify(bucket)
        if len(self._seen) > int(len(self._table) * LOAD_FACTOR):
            self._resize()

    def keys(self) -> list[Any]:
        return [node.key for bucket in self._table for node in bucket.nodes]

    def _resize(self) -> None:
        old, size = self._table, len(self._table) * 2
        self._table = [_Bin() for _ in range(size)]
        for index, bucket in enumerate(old):
            lo = [n for n in bucket.nodes if not n.hash & len(old)]
            hi = [n for n in bucket.nodes if n.hash & len(old)]
            for at, part, other in ((index, lo, hi), (index + len(old), hi, lo)):
                self._table[at].nodes = part
                if bucket.root is not None and len(part) > UNTREEIFY_THRESHOLD:
                    if other:
                        self._treeify(self._table[at])
                    else:                       # the whole tree moved as it was
                        self._table[at].root = bucket.root

    # -- tree bins (HashMap.TreeNode) -----------------------------------------------------
    def _direction(self, node: _Node, parent: _Node) -> int:
        if parent.hash > node.hash:
            return -1
        if parent.hash < node.hash:
            return 1
        order = self._compare(node.key, parent.key) if self._compare else 0
        return order if order else -1

    def _attach(self, bucket: _Bin, root: _Node, node: _Node) -> _Node:
        """Attaches ``node`` below its place in the tree of ``root``; the parent it is attached to."""
        parent = root
        while True:
            left = self._direction(node, parent) <= 0
            child = parent.left if left else parent.right
            if child is None:
                node.parent = parent
                if left:
                    parent.left = node
                else:
                    parent.right = node
                bucket.root = _balance_insertion(root, node)
                return parent
            parent = child

    def _treeify(self, bucket: _Bin) -> None:
        bucket.root = None
        for node in bucket.nodes:
            node.left = node.right = node.parent = None
            if bucket.root is None:
                node.red, bucket.root = False, node
            else:
                self._attach(bucket, bucket.root, node)
        _root_to_front(bucket)

    def _put_tree(self, bucket: _Bin, root: _Node, node: _Node) -> None:
        parent = self._attach(bucket, root, node)
        bucket.nodes.insert(bucket.nodes.index(parent) + 1, node)      # next after its parent
        _root_to_front(bucket)


def _root_to_front(bucket: _Bin) -> None:
    root = bucket.root
    if root is not None and bucket.nodes[0] is not root:
        bucket.nodes.remove(root)
        bucket.nodes.insert(0, root)


def _rotate_left(root: _Node, p: _Node) -> _Node:
    r = p.right
    if r is None:
        return root
    p.right = r.left
    if r.left is not None:
        r.left.parent = p
    r.parent = p.parent
    if p.parent is None:
        root, r.red = r, False
    elif p.parent.left is p:
        p.parent.left = r
    else:
        p.parent.right = r
    r.left, p.parent = p, r
    return root


def _rotate_right(root: _Node, p: _Node) -> _Node:
    left = p.left
    if left is None:
        return root
    p.left = left.right
    if left.right is not None:
        left.right.parent = p
    left.parent = p.parent
    if p.parent is None:
        root, left.red = left, False
    elif p.parent.right is p:
        p.parent.right = left
    else:
        p.parent.left = left
    left.right, p.parent = p, left
    return root


def _balance_insertion(root: _Node, x: _Node) -> _Node:
    """HashMap.TreeNode.balanceInsertion: the root after ``x`` is inserted (red-black rules)."""
    x.red = True
    while True:
        xp = x.parent
        if xp is None:
            x.red = False
            return x
        xpp = xp.parent
        if not xp.red or xpp is None:
            return root
        uncle = xpp.right if xp is xpp.left else xpp.left
        if uncle is not None and uncle.red:
            uncle.red = xp.red = False
            xpp.red = True
            x = xpp
            continue
        inner, rotate, back = ((xp.right, _rotate_left, _rotate_right) if xp is xpp.left
                               else (xp.left, _rotate_right, _rotate_left))
        if x is inner:
            x = xp
            root = rotate(root, x)
            xp = x.parent
            xpp = xp.parent if xp is not None else None
        if xp is not None:
            xp.red = False
            if xpp is not None:
                xpp.red = True
                root = back(root, xpp)


def _utf16_compare(a: str, b: str) -> int:
    """String.compareTo's sign: by UTF-16 code units."""
    ua, ub = a.encode("utf-16-be", "surrogatepass"), b.encode("utf-16-be", "surrogatepass")
    return (ua > ub) - (ua < ub)


def strings(keys: Iterable[str], initial: int | None = None) -> list[str]:
    """``keys`` put in this order into ``new HashMap<>(initial)``, in its iteration order."""
    table = HashMapModel(string_hash, initial, _utf16_compare)
    for key in keys:
        table.put(key)
    return table.keys()


def topic_partitions(keys: Iterable[tuple[str, int]], initial: int | None = None) -> list[tuple[str, int]]:
    """``strings`` for Kafka TopicPartition keys (not Comparable)."""
    table = HashMapModel(lambda tp: topic_partition_hash(*tp), initial)
    for key in keys:
        table.put(key)
    return table.keys()


def integers(keys: Iterable[int], initial: int | None = None) -> list[int]:
    """``strings`` for Integer keys (their own hash codes)."""
    table = HashMapModel(_int32, initial, lambda a, b: (a > b) - (a < b))
    for key in keys:
        table.put(key)
    return table.keys()


def hash_set_copy(n: int) -> int:
    """The initial capacity ``new HashSet<>(collection)`` of ``n`` elements sizes its map for."""
    return max(int(_float32(n / _float32(0.75))) + 1, 16)


# -- the orders the Java tools print ---------------------------------------------------------

def described_topics(names: list[str]) -> list[str]:
    """The admin client's describeTopics(names).allTopicNames() map (kafka-topics --describe
    passes the sorted names): three HashMaps, sized for n, copied, sized for n again."""
    n = len(names)
    ordered = strings(names, n)
    ordered = strings(ordered, copy_initial(n))
    return strings(ordered, n)


def config_entries(names: list[str]) -> list[str]:
    """A topic's configs as the admin client's Config holds them (a default HashMap filled in
    the DescribeConfigs response's order): the order of kafka-topics' ``Configs:`` list."""
    return strings(names)


def group_listing(group_ids: list[str]) -> list[str]:
    """kafka-consumer-groups --list: the admin client's default HashMap of every listed group,
    by id, filled in the order the brokers' ListGroups answers list them (``group_ids``)."""
    return strings(group_ids)


def reset_plans(plans: list[GroupPlan]) -> list[GroupPlan]:
    """kafka-consumer-groups --reset-offsets (plan table and --export): a default HashMap of
    groups, each holding a default HashMap of its partitions (Collectors.toMap)."""
    by_group = {plan.group: plan for plan in plans}
    out = []
    for group in strings(list(by_group)):
        rows = {(p.topic, p.partition): p for p in by_group[group].partitions}
        keys = topic_partitions(list(rows))         # planned in the tool's order
        out.append(replace(by_group[group], partitions=[rows[k] for k in keys]))
    return out


def reset_warnings(partitions: list[tuple[str, int]], clamped: dict[tuple[str, int], V],
                   empty: dict[tuple[str, int], V]) -> list[V]:
    """A group's reset warnings as OffsetsUtils prints them: a clamped offset while iterating the
    requested offsets (Collectors.toMap over every partition to reset), an empty partition while
    iterating a default HashMap of the partitions that had no record at the time."""
    every = topic_partitions(partitions)
    return ([clamped[tp] for tp in every if tp in clamped]
            + [empty[tp] for tp in topic_partitions(list(empty))])


def deleted_groups(group_ids: list[str]) -> list[str]:
    """kafka-consumer-groups --delete: results collected in default HashMaps."""
    return strings(group_ids)


def quota_entity_hash(parts: Iterable[tuple[str, str | None]]) -> int:
    """ClientQuotaEntity.hashCode: ``Objects.hash(entries)``, 31 plus its map's hashCode (the sum
    of each entry's key hash XOR value hash, a null name 0)."""
    total = 0
    for kind, name in parts:
        total += string_hash(kind) ^ (0 if name is None else string_hash(name))
    return _int32(31 + total)


def quota_entities(entities: list[V], parts: Callable[[V], Iterable[tuple[str, str | None]]]) -> list[V]:
    """The admin client's describeClientQuotas map (DescribeClientQuotasResponse.complete: a
    ``new HashMap<>(n)`` of entities, put in the broker's order), in its iteration order."""
    keyed = {tuple(parts(e)): e for e in entities}
    table = HashMapModel(quota_entity_hash, len(keyed))
    for key in keyed:
        table.put(key)
    return [keyed[k] for k in table.keys()]

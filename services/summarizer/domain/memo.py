"""What a report needs of each item, worked out when the item is folded and found again at the
window's close.

A report aggregates per-item results — a change's lines by kind of file, its role, its score
signals, its report line — that depend on nothing but the item's snapshot and tags, which are
frozen models. The store hands out the same parsed objects for the same stored text
(`ParsedCache`), so a result computed once for an object pair stays right for as long as both
objects live; `ItemMemo` keeps those results, keyed by the objects' identities (and verified
against them: an id is only unique while its object is alive, and each entry keeps its objects
alive). The fold works out a merged change's results as it folds it (`report.warm_items`), so a
window's report at its close only aggregates; a summarizer that restarted works them out on its
first report, as before.

Both caches are bounded by a two-generation scheme instead of an LRU list: the young generation
fills up to `size` entries, then becomes the old one (the previous old one is dropped) and a hit
in the old generation moves to the young. Lookups and inserts are plain dict operations (atomic
under the GIL, so the fold's thread and a report's thread can share a cache without a lock; a race
at worst computes a result twice); an LRU list would cost a Python-level reordering on every hit,
the very work these caches exist to save.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable
from typing import Any, Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

_MISSING: Any = object()


class TwoGenerations(Generic[K, V]):
    """A bounded mapping: at most 2 × `size` entries, the least recently used dropped first
    (by generations of `size`)."""

    def __init__(self, size: int) -> None:
        if size < 1:
            raise ValueError(f"a cache needs room for at least one entry, not {size}")
        self.size = size
        self._young: dict[K, V] = {}
        self._old: dict[K, V] = {}

    def get(self, key: K) -> V | None:
        value = self._young.get(key, _MISSING)
        if value is not _MISSING:
            return value
        value = self._old.get(key, _MISSING)
        if value is _MISSING:
            return None
        self.put(key, value)  # used again: it stays
        return value

    def put(self, key: K, value: V) -> None:
        young = self._young
        if len(young) >= self.size and key not in young:
            self._old, self._young = young, {}
            young = self._young
        young[key] = value

    def get_or_make(self, key: K, make: Callable[[K], V]) -> V:
        """The value kept for `key`, else `make(key)`, kept."""
        value = self.get(key)
        if value is None:
            value = make(key)
            self.put(key, value)
        return value

    def intern(self, key: K, value: V) -> V:
        """The value kept for `key`, after keeping `value` if there was none (the first one
        stays: whoever holds it keeps its per-item results)."""
        kept = self.get(key)
        if kept is None:
            self.put(key, value)
            return value
        return kept

    def __len__(self) -> int:
        return len(self._young) + len(self._old)

    def clear(self) -> None:
        self._young, self._old = {}, {}


class ItemMemo:
    """Results of pure functions of (snapshot, tags[, other objects]), per object identity."""

    def __init__(self, size: int = 50_000) -> None:
        self._cache: TwoGenerations[tuple, tuple] = TwoGenerations(size)
        self.hits = self.misses = 0
        self.missed: Counter[str] = Counter()  # misses by kind

    def get(
        self,
        kind: str,
        snap: object,
        tags: object,
        compute: Callable[[], V],
        *,
        extra: tuple[Hashable, ...] = (),
        keep: tuple[object, ...] = (),
    ) -> V:
        """`compute()`'s value for this pair of objects; `extra`: further key parts (plain
        values), `keep`: further objects the value depends on (keyed by identity, kept alive)."""
        key = (kind, id(snap), id(tags), extra, tuple(map(id, keep)))
        hit = self._cache.get(key)
        if hit is not None and hit[0] is snap and hit[1] is tags:
            self.hits += 1
            return hit[3]
        self.misses += 1
        self.missed[kind] += 1
        value = compute()
        self._cache.put(key, (snap, tags, keep, value))
        return value

    def clear(self) -> None:
        self._cache.clear()
        self.hits = self.misses = 0
        self.missed.clear()


# the summarizer's process-wide memo (report.py's per-item functions answer through it)
ITEMS = ItemMemo()

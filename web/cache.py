"""A small in-process cache for what does not change: a stored game never changes once stored
(its key is its digest), so its parsed tree and the viewer's data for it are kept between
requests instead of being replayed each time.  Bounded by a total size (plies, nodes), least
recently used first out; shared by the server's threads."""

from __future__ import annotations

import threading
from collections import OrderedDict


class SizedCache:
    """``get(key)`` / ``put(key, value, size)``; entries beyond ``capacity`` in total size are
    dropped, least recently used first.  A value larger than the capacity is not kept.

    >>> c = SizedCache(10)
    >>> c.put("a", 1, 6); c.put("b", 2, 6); c.get("a"), c.get("b")
    (None, 2)
    """

    def __init__(self, capacity: int):
        self.capacity = capacity
        self._items: OrderedDict = OrderedDict()
        self._size = 0
        self._lock = threading.Lock()

    def get(self, key):
        with self._lock:
            item = self._items.get(key)
            if item is None:
                return None
            self._items.move_to_end(key)
            return item[0]

    def put(self, key, value, size: int = 1) -> None:
        if size > self.capacity:
            return
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self._size -= old[1]
            self._items[key] = (value, size)
            self._size += size
            while self._size > self.capacity:
                _, (_, dropped) = self._items.popitem(last=False)
                self._size -= dropped

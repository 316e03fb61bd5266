"""Wrong director PINs on the desk page slow down the address they came from.

Without it a client could try every 4-digit PIN in seconds (300 wrong ones took 0.26 s) and pair boards at
will. After :attr:`PinWaits.free_tries` wrong PINs in a row from one address, each further entry from it
waits ``base_s`` doubling up to ``max_s`` (30 s), the right PIN too; other addresses (the director's phone)
are not affected. At most ``max_addresses`` addresses are remembered (the oldest forgotten first).
"""

from __future__ import annotations

import logging
import math
import time
from collections import OrderedDict
from collections.abc import Callable

log = logging.getLogger(__name__)


class PinWaits:
    """Per-address waits after wrong PINs. ``now`` is a monotonic clock in seconds (tests pass their own)."""

    def __init__(self, free_tries: int = 3, base_s: float = 1.0, max_s: float = 30.0, max_addresses: int = 1000,
                 now: Callable[[], float] = time.monotonic) -> None:
        self.free_tries, self.base_s, self.max_s, self.max_addresses = free_tries, base_s, max_s, max_addresses
        self.now = now
        self._wrong: OrderedDict[str, tuple[int, float]] = OrderedDict()   # address -> (wrong in a row, until)

    def wait_s(self, address: str) -> int:
        """Whole seconds ``address`` must still wait before its next PIN is checked (0: none)."""
        left = self._wrong.get(address, (0, 0.0))[1] - self.now()
        return math.ceil(min(left, self.max_s)) if left > 0 else 0

    def wrong(self, address: str) -> None:
        """Count a wrong PIN from ``address`` (logged as a warning)."""
        n = self._wrong.pop(address, (0, 0.0))[0] + 1
        wait = 0.0 if n < self.free_tries else min(self.max_s, self.base_s * 2 ** min(n - self.free_tries, 30))
        self._wrong[address] = (n, self.now() + wait)
        while len(self._wrong) > self.max_addresses:
            self._wrong.popitem(last=False)
        log.warning("desk: wrong director PIN from %s, %d in a row", address, n)

    def right(self, address: str) -> None:
        """The right PIN from ``address``: its count starts again."""
        self._wrong.pop(address, None)

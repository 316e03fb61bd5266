"""What the kiosk's two web servers (the live page, the desk) log of their peers' misbehaviour, so that an operator
reading the journal learns who does what without any peer being able to fill it:

* :class:`LineBudget`: at most :data:`PER_ADDRESS` lines about one address in a :data:`WINDOW_S` window and at
  most :data:`TOTAL` about all of them; the rest are counted, the count said with that address's next line, and
  the last line a window lets through says that more are being held back;
* :class:`HttpLog`: the logger a server hands aiohttp. A request aiohttp cannot parse (binary bytes, a TLS
  ClientHello sent to the http:// port, a bad method, a URL that is no URL, an oversized header) is refused 400 by
  aiohttp and said here in one warning line naming the peer, within the budget (aiohttp logs some at ERROR with a
  traceback, and those it takes for noise, non-HTTP bytes, at DEBUG only); a connection lost while a response was
  being written is one debug line (aiohttp: ERROR "Error handling request" with a traceback); anything else goes
  to :data:`HTTP_LOG` as aiohttp says it.
"""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Callable
from typing import Any

HTTP_LOG = logging.getLogger("kiosk.http")   # aiohttp's request handling lines of the live page and the desk
PER_ADDRESS = 5     #: lines about one address a window lets through
TOTAL = 50          #: lines about all addresses a window lets through
WINDOW_S = 60.0     #: the window (s)
_MAX_HELD = 1024    # addresses whose held-back lines are counted by name (beyond: counted together)


class LineBudget:
    """See module doc. Used on one server's event loop thread."""

    def __init__(self, per_address: int = PER_ADDRESS, total: int = TOTAL, window_s: float = WINDOW_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.per_address, self.total, self.window_s, self.clock = per_address, total, window_s, clock
        self.held_back = 0                  # lines not logged, in all
        self._start = -window_s             # the window's start
        self._said: dict[str, int] = {}     # lines said this window, by address (at most ``total`` entries)
        self._held: dict[str, int] = {}     # lines held back since the address's last line
        self._held_unnamed = 0              # ... of addresses beyond _MAX_HELD

    def take(self, address: str) -> str | None:
        """A line about ``address`` may go out: the note to end it with ("" mostly; the lines about it held back
        since its last, or that more will be held back), or None: say nothing (counted)."""
        now = self.clock()
        if now - self._start >= self.window_s:
            self._start, self._said = now, {}
        said = self._said.get(address, 0)
        in_all = sum(self._said.values())
        if said >= self.per_address or in_all >= self.total:
            self.held_back += 1
            if address in self._held or len(self._held) < _MAX_HELD:
                self._held[address] = self._held.get(address, 0) + 1
            else:
                self._held_unnamed += 1
            return None
        self._said[address] = said + 1
        notes = []
        held = self._held.pop(address, 0)
        if held:
            notes.append(f"{held} more about {address} not logged")
        if self._held_unnamed and in_all + 1 == 1:   # the first line of a window tells of the others' too
            notes.append(f"{self._held_unnamed} more about other addresses not logged")
            self._held_unnamed = 0
        left = self._start + self.window_s - now
        if in_all + 1 == self.total:
            notes.append(f"more such lines in the next {left:.0f} s are counted, not logged")
        elif said + 1 == self.per_address:
            notes.append(f"more about {address} in the next {left:.0f} s are counted, not logged")
        return "".join(f"; {n}" for n in notes)


class HttpLog(logging.LoggerAdapter[logging.Logger]):
    """The logger one server hands aiohttp (module doc). ``where``: the server's name at the head of its lines;
    ``budget``: its :class:`LineBudget`; :attr:`malformed_requests` counts the requests refused 400."""

    def __init__(self, where: str, budget: LineBudget) -> None:
        super().__init__(HTTP_LOG, {})
        self.where, self.budget = where, budget
        self.malformed_requests = 0

    def log(self, level: int, msg: object, *args: Any, **kwargs: Any) -> None:
        exc = kwargs.get("exc_info")
        if exc is True:
            exc = sys.exc_info()[1]
        elif isinstance(exc, tuple):
            exc = exc[1]
        peer = str(args[0]) if args and str(msg).startswith("Error handling request from") else "?"
        if _client_error(exc):
            self.malformed_requests += 1
            note = self.budget.take(peer)
            if note is not None:
                self.logger.warning("%s: refused a malformed request from %s (%d: %s)%s", self.where, peer,
                                    getattr(exc, "code", None) or 400, _why(exc), note)
        elif isinstance(exc, ConnectionError):
            self.logger.debug("%s: the connection from %s was lost during its response (%s)", self.where, peer, exc)
        elif self.logger.isEnabledFor(level):
            self.logger.log(level, msg, *args, **kwargs)


def _client_error(exc: object) -> bool:
    from aiohttp.http_exceptions import HttpProcessingError

    return isinstance(exc, HttpProcessingError) and 400 <= (exc.code or 400) < 500


def _why(exc: object) -> str:
    """aiohttp's first line about a request it refused, without its quoting of the peer's bytes, at most 100
    characters, every character printable (a peer's bytes are never written to the log as they came)."""
    text = str(getattr(exc, "message", "") or type(exc).__name__).strip()
    line = (text.splitlines() or [type(exc).__name__])[0].rstrip(":")
    return "".join(c if c.isprintable() else f"\\x{ord(c):02x}" for c in line)[:100]

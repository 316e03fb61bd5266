"""What the kiosk's publisher and the desk's subscriber say about their MQTT connection: one warning in words per
outage, and a line when it clears.

paho reconnects quietly: a closed port, a server that is no MQTT broker (a web server), one that accepts and never
answers, a broker stopped - the kiosk logged nothing (or only ``disconnected ... (Unspecified error)`` at INFO) and
the desk nothing at all. :class:`BrokerWatch` is told of every attempt's outcome from paho's network thread and
says, once per outage:

* ``the tournament broker at HOST:PORT cannot be reached: connection refused`` (or the system's reason: no route,
  name not known, ...);
* ``the tournament broker at HOST:PORT is not an MQTT broker: ...`` (it answered something that is not MQTT, or
  closed the connection without an MQTT answer);
* ``the tournament broker at HOST:PORT does not answer: ...`` (connected, no MQTT reply within the keepalive);
* ``lost the connection to the tournament broker at HOST:PORT (...); it cannot be reached: ...; reconnecting``
  (it was connected, and the next attempt failed too: a connection back at once - a blip, or two clients of one
  id pushing each other off, which the desk says in its own words - is no outage);

then ``connected again to HOST:PORT after N s`` when a connection is accepted. A connection that keeps dropping
(two clients of one id pushing each other off) is said at most every :data:`QUIET_S`: an outage beginning sooner
after the last one said is said only if it lasts that long. A broker refusing the login (a wrong
password) is said by its user (it knows the refusal's words); :meth:`BrokerWatch.refused` only starts the outage.
"""

from __future__ import annotations

import socket
import ssl
import time
from collections.abc import Callable
from typing import Any

QUIET_S = 60.0


def _why(exc: OSError) -> str:
    """An attempt's failure in words: ``cannot be reached: connection refused`` ... (follows the broker's address)."""
    if isinstance(exc, ConnectionRefusedError):
        return "cannot be reached: connection refused (nothing listens on that port)"
    if isinstance(exc, TimeoutError | socket.timeout):
        return "does not answer: the connection attempt timed out"
    if isinstance(exc, socket.gaierror):
        return f"cannot be reached: its name is not known ({exc.strerror or exc})"
    if isinstance(exc, ssl.SSLError):
        return f"cannot be reached: the TLS handshake failed ({exc.reason or exc})"
    if isinstance(exc, ConnectionResetError):
        return "is not an MQTT broker: it closed the connection without an MQTT answer"
    text = (exc.strerror or str(exc) or type(exc).__name__).rstrip(".")
    return f"cannot be reached: {text[:1].lower() + text[1:]}"


class BrokerWatch:
    """See module doc. ``say(text)``: how the owner warns (a log line, its list of errors); ``keepalive_s``: the
    client's keepalive, how long paho waits for the broker's first answer."""

    def __init__(self, host: str, port: int, say: Callable[[str], None], *, keepalive_s: float) -> None:
        self.where = f"{host}:{port}"
        self.say = say
        self.keepalive_s = keepalive_s
        self.connected = False
        self.stopping = False              # set before the owner's own disconnect: that is no outage
        self.down_since: float | None = None   # monotonic time the outage began (None: none going on)
        self.told = False                  # the outage has been said
        self.outages = 0
        self._said_at = -QUIET_S           # monotonic time an outage was last said
        self._lost = ""                    # why the connection was lost, said with the first attempt that fails

    def attach(self, client: Any) -> None:
        """Wrap ``client.reconnect`` (what paho's network thread calls for every attempt) to learn why one fails."""
        original = client.reconnect

        def reconnect(*args: Any, **kwargs: Any) -> Any:
            try:
                return original(*args, **kwargs)
            except OSError as exc:
                if not self.stopping:
                    self._outage(_why(exc))
                raise

        client.reconnect = reconnect

    def _outage(self, why: str, *, say: bool = True) -> None:
        """An attempt failed (``why`` follows "the tournament broker at HOST:PORT"): say it once per outage."""
        now = time.monotonic()
        if self.down_since is None:
            self.down_since = now
            self.outages += 1
        if say and not self.told and (now - self._said_at >= QUIET_S or now - self.down_since >= QUIET_S):
            self.told = True
            self._said_at = now
            if self._lost:
                self.say(f"lost the connection to the tournament broker at {self.where} ({self._lost}); it {why}; "
                         "reconnecting")
            else:
                self.say(f"the tournament broker at {self.where} {why}")

    def refused(self) -> None:
        """The broker answered and refused the connection (its owner says why): an outage begins, unsaid here."""
        self.connected = False
        self._outage("", say=False)
        self.told = True

    def on_connect(self) -> None:
        """The broker accepted the connection: say so when an outage was said."""
        if self.down_since is not None and self.told:
            self.say(f"connected again to {self.where} after {time.monotonic() - self.down_since:.0f} s")
        self.connected = True
        self.down_since = None
        self.told = False
        self._lost = ""

    def on_disconnect(self, reason: Any, from_broker: bool = False) -> None:
        """paho's on_disconnect: a connection lost, or an attempt that got no MQTT answer."""
        if self.stopping:
            self.connected = False
            return
        text = str(reason)
        if self.connected:
            self.connected = False
            if from_broker:
                why = f"the broker closed it: {text}"
            elif "Keep alive" in text:
                why = f"no answer within the keepalive of {self.keepalive_s:g} s"
            else:
                why = "the connection was lost"
            self._outage("", say=False)   # said with the first attempt that fails
            self._lost = why
            return
        if "Keep alive" in text:
            why = (f"does not answer: no MQTT reply within {self.keepalive_s:g} s of connecting (is it an MQTT "
                   "broker?)")
        elif "Protocol" in text or "Malformed" in text:
            why = "is not an MQTT broker: what it answered is not MQTT"
        else:
            why = "is not an MQTT broker: it closed the connection without an MQTT answer (or it expects TLS)"
        self._outage(why)

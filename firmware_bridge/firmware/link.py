"""Sans-IO link layer of the clock protocol: sequence numbers, ACK and retransmit, duplicates, heartbeat, loss.

Shared by the RP2040 firmware (MicroPython) and the host (CPython). The caller moves bytes: ``receive(data,
now_ms)`` with what came in, ``tick(now_ms)`` regularly, and writes ``take_output()`` to the wire. Times are
milliseconds of the caller's monotonic clock.

Reliable messages (BUTTON, DISPLAY, STATUS) go stop-and-wait: one in flight, retransmitted every ``rto_ms``
until its ACK arrives, keeping its sequence number across retransmits and across a reconnect, so the receiver
can recognise a copy it already delivered (``duplicates`` counter).

Outside a session (``active`` False) a reliable frame is neither acknowledged nor delivered: it is counted in
``outside_session`` (the firmware answers NO_SESSION), so a peer can never take such an ACK for a session.
The queue of messages waiting to be sent is bounded (``queue_max``); beyond it the oldest message whose type
is not in ``precious`` goes first (only when every queued message is precious is the oldest of them dropped).
"""

try:
    from firmware_bridge.firmware import proto
except ImportError:  # on the microcontroller the modules sit side by side
    import proto


HEARTBEAT_MS = 1000
"""Each end sends a HEARTBEAT this often in a session: the protocol's interval that every timeout of the link is
measured against (PROTOCOL.md, "Heartbeat and link loss")."""
RETRANSMIT_MS = 120
"""An unacknowledged reliable frame is sent again this often: several times within one heartbeat interval."""
LOSS_MIN_MS = 2 * HEARTBEAT_MS
"""The shortest loss timeout: a heartbeat late by up to a whole interval (USB latency, a busy host or MCU loop)
is no lost link. A shorter timeout declares a working link lost between two heartbeats (500 ms: 4 false losses
in 5 s on the simulator)."""
LOSS_MAX_MS = 3000
"""The longest loss timeout: a lost link is declared within 3 s."""
LOSS_MS = 2500
"""The default loss timeout, between the two: one heartbeat lost to line noise is still no lost link."""


def loss_problem(loss_ms, heartbeat_ms=HEARTBEAT_MS):
    """Why ``loss_ms`` cannot be the loss timeout of a link whose peer sends a heartbeat every ``heartbeat_ms``,
    as the end of a sentence naming the setting ("must be at least 2000 ms: ..."); None when it can. The
    bounds come from the heartbeat interval (:data:`LOSS_MIN_MS`) and the 3 s promise (:data:`LOSS_MAX_MS`)."""
    low = 2 * heartbeat_ms
    allowed = "allowed " + str(low) + ".." + str(LOSS_MAX_MS) + " ms"
    if loss_ms < low:
        return ("must be at least " + str(low) + " ms (" + allowed + "): the clock sends a heartbeat every "
                + str(heartbeat_ms) + " ms, and a heartbeat late by up to one interval (USB latency, a busy "
                "kiosk) must not count as a lost link; got " + str(loss_ms) + " ms")
    if loss_ms > LOSS_MAX_MS:
        return ("must be at most " + str(LOSS_MAX_MS) + " ms (" + allowed + "): a lost link is declared within "
                "3 s; got " + str(loss_ms) + " ms")
    return None


def timing_problem(rto_ms, heartbeat_ms, loss_ms):
    """Why these times cannot be a link's (a sentence naming the argument), or None."""
    if heartbeat_ms <= 0:
        return "heartbeat_ms must be > 0, got " + str(heartbeat_ms)
    if not 0 < rto_ms < heartbeat_ms:
        return ("rto_ms must be 1.." + str(heartbeat_ms - 1) + " ms: a lost frame is sent again before the next "
                "heartbeat (every " + str(heartbeat_ms) + " ms); got " + str(rto_ms))
    problem = loss_problem(loss_ms, heartbeat_ms)
    return None if problem is None else "loss_ms " + problem


class Link:
    """One end of the link. ``active`` gates all output except what the caller sends with ``send_raw``."""

    def __init__(self, rto_ms=RETRANSMIT_MS, heartbeat_ms=HEARTBEAT_MS, loss_ms=LOSS_MS, queue_max=32, precious=(),
                 dedup=True, accept=None):
        """``dedup``: drop a reliable frame with the last delivered seq (False: deliver it, the caller
        recognises copies itself); ``accept(type, body) -> bool``: False leaves a reliable frame unacknowledged
        and undelivered, so the peer sends it again later (back-pressure; counted in ``refused``). Times that
        cannot work together (:func:`timing_problem`: a loss timeout shorter than two heartbeats) raise
        ValueError."""
        problem = timing_problem(rto_ms, heartbeat_ms, loss_ms)
        if problem is not None:
            raise ValueError(problem)
        self.rto_ms = rto_ms
        self.heartbeat_ms = heartbeat_ms
        self.loss_ms = loss_ms
        self.queue_max = queue_max
        self.precious = precious
        self.dedup = dedup
        self.accept = accept
        self.decoder = proto.FrameDecoder()
        self.active = False
        self.tx_seq = 0
        self.pending = []          # [(type, body)] waiting for their turn
        self.inflight = None       # [seq, type, body, sent_ms, tries]
        self.rx_last_seq = None
        self.last_rx_ms = None
        self.last_hb_ms = None
        self.out = bytearray()
        self.last_acked = None     # (type, body) of the last reliable message the peer acknowledged
        self.outside_session = 0   # reliable frames received while not active (neither acked nor delivered)
        self.counters = {"retransmits": 0, "duplicates": 0, "queue_overflow": 0, "stray_acks": 0, "refused": 0}

    # ---- sending ----
    def send(self, mtype, body):
        """Queue a reliable message (delivered once, in order); see the module doc for a full queue."""
        if len(self.pending) >= self.queue_max:
            drop = 0
            for i in range(len(self.pending)):
                if self.pending[i][0] not in self.precious:
                    drop = i
                    break
            self.pending.pop(drop)
            self.counters["queue_overflow"] += 1
        self.pending.append((mtype, bytes(body)))

    def send_raw(self, mtype, body=b""):
        """Send an unacknowledged message now (HELLO, HELLO_REPLY, HEARTBEAT), whether active or not."""
        self.out.extend(proto.encode_frame(mtype, 0, body))

    def take_output(self):
        """Bytes to write to the wire since the last call."""
        data = bytes(self.out)
        self.out = bytearray()
        return data

    # ---- receiving ----
    def receive(self, data, now_ms):
        """Feed received bytes; returns the delivered messages as a list of ``(type, body)``."""
        delivered = []
        for mtype, seq, body in self.decoder.feed(data):
            self.last_rx_ms = now_ms
            if mtype == proto.ACK:
                inf = self.inflight
                if not self.active:
                    self.counters["stray_acks"] += 1
                elif inf is not None and len(body) == 1 and body[0] == inf[0]:
                    self.inflight = None
                    self.last_acked = (inf[1], inf[2])
                else:
                    self.counters["stray_acks"] += 1
            elif mtype in proto.RELIABLE:
                if not self.active:
                    self.outside_session += 1
                    continue
                if self.accept is not None and not self.accept(mtype, body):
                    self.counters["refused"] += 1
                    continue
                self.out.extend(proto.encode_frame(proto.ACK, 0, bytes((seq,))))
                if self.dedup and seq == self.rx_last_seq:
                    self.counters["duplicates"] += 1
                else:
                    self.rx_last_seq = seq
                    delivered.append((mtype, body))
            else:
                delivered.append((mtype, body))
        return delivered

    def reset_rx(self):
        """Forget the last delivered sequence number (the peer restarted and counts afresh)."""
        self.rx_last_seq = None

    def drop_pending(self):
        """Discard queued and in-flight reliable messages."""
        self.pending = []
        self.inflight = None

    # ---- time ----
    def tick(self, now_ms):
        """Send the next reliable message, retransmit one unacknowledged past ``rto_ms``, send heartbeats."""
        if not self.active:
            return
        inf = self.inflight
        if inf is None and self.pending:
            mtype, body = self.pending.pop(0)
            inf = self.inflight = [self.tx_seq, mtype, body, now_ms, 1]
            self.tx_seq = (self.tx_seq + 1) & 0xFF
            self.out.extend(proto.encode_frame(mtype, inf[0], body))
        elif inf is not None and now_ms - inf[3] >= self.rto_ms:
            inf[3] = now_ms
            inf[4] += 1
            self.counters["retransmits"] += 1
            self.out.extend(proto.encode_frame(inf[1], inf[0], inf[2]))
        if self.last_hb_ms is None or now_ms - self.last_hb_ms >= self.heartbeat_ms:
            self.last_hb_ms = now_ms
            self.out.extend(proto.encode_frame(proto.HEARTBEAT, 0, proto.pack_heartbeat(now_ms)))

    def alive(self, now_ms):
        """True when a good frame arrived within ``loss_ms``."""
        return self.last_rx_ms is not None and now_ms - self.last_rx_ms < self.loss_ms

    def dropped(self):
        """Bad frames dropped by reason (dict)."""
        return dict(self.decoder.dropped)

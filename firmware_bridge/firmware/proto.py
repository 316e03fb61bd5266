"""Wire format of the clock link: COBS framing, CRC-16/CCITT-FALSE, message types (see ../PROTOCOL.md).

Runs unchanged under MicroPython (RP2040 firmware) and CPython (host, simulator, tests): no dataclasses, no
typing imports, only ``struct`` from the standard library.

A frame on the wire is ``b"\\x00" + COBS(header + body + crc) + b"\\x00"`` (the leading delimiter ends any
garbage before it, so the frame after line noise is not lost) where header is
``type (u8), seq (u8), length (u8)``, body is ``length`` bytes and crc is CRC-16/CCITT-FALSE (big-endian) over
header + body.
"""

import struct

PROTOCOL_VERSION = 2
MAX_BODY = 32
HEADER_LEN = 3
CRC_LEN = 2
MAX_FRAME = HEADER_LEN + MAX_BODY + CRC_LEN      # decoded bytes
MAX_ENCODED = MAX_FRAME + MAX_FRAME // 254 + 1   # COBS overhead, delimiters excluded

# message types
HELLO = 0x01        # host -> MCU: u8 protocol version wanted, u32 host nonce; starts a session
HELLO_REPLY = 0x02  # MCU -> host: u8 version, u32 nonce echoed, u32 MCU ms, u32 boot id, u16 last press counter,
#                     u16 last acknowledged press counter, ascii firmware version
HEARTBEAT = 0x03    # both ways, 1 Hz: u32 sender ms
ACK = 0x04          # both ways: u8 acknowledged seq
NO_SESSION = 0x05   # MCU -> host: u32 boot id; "I have no session": answers any host frame but HELLO outside one
BUTTON = 0x10       # MCU -> host, reliable: u8 side, u32 MCU ms of the press edge, u16 press counter, u32 boot id
DISPLAY = 0x20      # host -> MCU, reliable: u8 side, 4 x u8 segment bytes, u8 flags
STATUS = 0x30       # MCU -> host, reliable: u8 flags (bit0 display ok), u16 i2c error count

RELIABLE = (BUTTON, DISPLAY, STATUS)
KNOWN = (HELLO, HELLO_REPLY, HEARTBEAT, ACK, NO_SESSION, BUTTON, DISPLAY, STATUS)

SIDES = ("left", "right", "pause", "judge")
DISPLAY_COLON = 0x01
DISPLAY_BLINK = 0x02


def crc16(data, crc=0xFFFF):
    """CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection, no xorout) of ``data`` -> int 0..65535."""
    for b in data:
        crc ^= b << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
    return crc


def cobs_encode(data):
    """COBS-encode ``data`` (bytes) -> bytes without any zero byte and without the trailing delimiter."""
    out = bytearray()
    block = bytearray()
    for b in data:
        if b == 0:
            out.append(len(block) + 1)
            out.extend(block)
            block = bytearray()
        else:
            block.append(b)
            if len(block) == 254:
                out.append(255)
                out.extend(block)
                block = bytearray()
    out.append(len(block) + 1)
    out.extend(block)
    return bytes(out)


def cobs_decode(data):
    """Inverse of :func:`cobs_encode`. Raises ValueError on a malformed block (zero byte or overrun)."""
    out = bytearray()
    i = 0
    n = len(data)
    while i < n:
        code = data[i]
        if code == 0:
            raise ValueError("zero byte inside COBS frame")
        end = i + code
        if end > n:
            raise ValueError("COBS block runs past the frame end")
        out.extend(data[i + 1:end])
        i = end
        if code != 255 and i < n:
            out.append(0)
    return bytes(out)


def encode_frame(mtype, seq, body=b""):
    """One wire frame (bytes, delimiter included) for message ``mtype`` with sequence number ``seq`` (0..255)."""
    if len(body) > MAX_BODY:
        raise ValueError(f"frame body too long: {len(body)} > {MAX_BODY} bytes")
    raw = bytes((mtype & 0xFF, seq & 0xFF, len(body))) + bytes(body)
    crc = crc16(raw)
    return b"\x00" + cobs_encode(raw + bytes((crc >> 8, crc & 0xFF))) + b"\x00"


# reasons a frame is dropped; the decoder counts each
DROP_COBS = "cobs"
DROP_SHORT = "short"
DROP_LENGTH = "length"
DROP_CRC = "crc"
DROP_OVERSIZE = "oversize"
DROP_TYPE = "type"


class FrameDecoder:
    """Splits a byte stream at zero delimiters and checks each frame.

    ``feed(data)`` returns a list of ``(type, seq, body)`` tuples of the good frames; bad ones are dropped and
    counted in ``self.dropped`` (a dict reason -> count). Garbage before the first delimiter is a bad frame
    too, so a link that starts mid-frame resynchronises on the next zero byte.
    """

    def __init__(self):
        self.buf = bytearray()
        self.overflow = False
        self.dropped = {}
        self.good = 0

    def _drop(self, reason):
        self.dropped[reason] = self.dropped.get(reason, 0) + 1

    def feed(self, data):
        frames = []
        for b in data:
            if b != 0:
                if len(self.buf) < MAX_ENCODED:
                    self.buf.append(b)
                else:
                    self.overflow = True
                continue
            if self.overflow:
                self._drop(DROP_OVERSIZE)
            elif self.buf:
                frame = self._check(bytes(self.buf))
                if frame is not None:
                    frames.append(frame)
            self.buf = bytearray()
            self.overflow = False
        return frames

    def _check(self, encoded):
        try:
            raw = cobs_decode(encoded)
        except ValueError:
            self._drop(DROP_COBS)
            return None
        if len(raw) < HEADER_LEN + CRC_LEN:
            self._drop(DROP_SHORT)
            return None
        if raw[2] != len(raw) - HEADER_LEN - CRC_LEN:
            self._drop(DROP_LENGTH)
            return None
        if crc16(raw[:-2]) != (raw[-2] << 8 | raw[-1]):
            self._drop(DROP_CRC)
            return None
        if raw[0] not in KNOWN:
            self._drop(DROP_TYPE)
            return None
        self.good += 1
        return raw[0], raw[1], raw[HEADER_LEN:-CRC_LEN]


# ---- message bodies ----

def pack_hello(nonce, version=PROTOCOL_VERSION):
    """HELLO body: the protocol version the host speaks and its 32-bit nonce for this handshake."""
    return struct.pack(">BI", version, nonce & 0xFFFFFFFF)


def unpack_hello(body):
    """-> (version, nonce). A body of 1 byte (a protocol v1 host) has nonce 0. Raises ValueError when empty."""
    if len(body) < 1:
        raise ValueError("HELLO body empty")
    if len(body) < 5:
        return body[0], 0
    return struct.unpack(">BI", body[:5])


REPLY_FIXED = 17  # version, nonce, ms, boot id, press counter, acknowledged press counter


def pack_hello_reply(version, nonce, mcu_ms, boot_id, presses, acked, firmware):
    """HELLO_REPLY body; ``presses``: the counter of the last press made in this boot, ``acked``: of the last
    press the host acknowledged (0: none yet); ``firmware``: ASCII, at most 15 bytes are sent."""
    return struct.pack(">BIIIHH", version, nonce & 0xFFFFFFFF, mcu_ms & 0xFFFFFFFF, boot_id & 0xFFFFFFFF,
                       presses & 0xFFFF, acked & 0xFFFF) + firmware.encode()[:MAX_BODY - REPLY_FIXED]


def pack_hello_reply_v1(mcu_ms, boot_id, firmware):
    """A protocol version 1 HELLO_REPLY body (u8 version 1, u32 MCU ms, u16 boot id, ASCII firmware), as the
    old firmware sent it: the simulator's version 1 clock, so a v2 host's mismatch message is tested on it."""
    return struct.pack(">BIH", 1, mcu_ms & 0xFFFFFFFF, boot_id & 0xFFFF) + firmware.encode()[:MAX_BODY - 7]


def reply_version(body):
    """The protocol version of a HELLO_REPLY of any version (its first byte). Raises ValueError when empty."""
    if len(body) < 1:
        raise ValueError("HELLO_REPLY body empty")
    return body[0]


def unpack_hello_reply(body):
    """-> (version, nonce, mcu_ms, boot_id, presses, acked, firmware str). Raises ValueError when too short."""
    if len(body) < REPLY_FIXED:
        raise ValueError("HELLO_REPLY body too short")
    version, nonce, mcu_ms, boot_id, presses, acked = struct.unpack(">BIIIHH", body[:REPLY_FIXED])
    return version, nonce, mcu_ms, boot_id, presses, acked, bytes(body[REPLY_FIXED:]).decode("ascii", "replace")


def pack_no_session(boot_id):
    return struct.pack(">I", boot_id & 0xFFFFFFFF)


def pack_heartbeat(ms):
    return struct.pack(">I", ms & 0xFFFFFFFF)


def pack_button(side_index, mcu_ms, counter, boot_id=0):
    return struct.pack(">BIHI", side_index, mcu_ms & 0xFFFFFFFF, counter & 0xFFFF, boot_id & 0xFFFFFFFF)


def unpack_button(body):
    """-> (side index, MCU ms, press counter, boot id). Raises ValueError on a bad length or side."""
    if len(body) != 11:
        raise ValueError("BUTTON body must be 11 bytes")
    side, ms, counter, boot_id = struct.unpack(">BIHI", body)
    if side >= len(SIDES):
        raise ValueError(f"BUTTON side {side} out of range")
    return side, ms, counter, boot_id


def pack_display(side_index, segments, flags):
    if len(segments) != 4:
        raise ValueError("DISPLAY needs 4 segment bytes")
    return bytes((side_index,)) + bytes(segments) + bytes((flags,))


def unpack_display(body):
    """-> (side index 0/1, 4 segment bytes, flags). Raises ValueError on a bad length or side."""
    if len(body) != 6:
        raise ValueError("DISPLAY body must be 6 bytes")
    if body[0] > 1:
        raise ValueError(f"DISPLAY side {body[0]} out of range")
    return body[0], bytes(body[1:5]), body[5]


def pack_status(display_ok, i2c_errors):
    return struct.pack(">BH", 1 if display_ok else 0, min(i2c_errors, 0xFFFF))


def unpack_status(body):
    """-> (display ok bool, i2c error count). Raises ValueError on a bad length."""
    if len(body) != 3:
        raise ValueError("STATUS body must be 3 bytes")
    flags, errors = struct.unpack(">BH", body)
    return bool(flags & 1), errors

"""Wire format of the clock link: COBS framing, CRC-16/CCITT-FALSE, message types (see ../PROTOCOL.md).

Runs unchanged under MicroPython (RP2040 firmware) and CPython (host, simulator, tests): no dataclasses, no
typing imports, only ``struct`` from the standard library.

A frame on the wire is ``b"\\x00" + COBS(header + body + crc) + b"\\x00"`` (the leading delimiter ends any
garbage before it, so the frame after line noise is not lost) where header is
``type (u8), seq (u8), length (u8)``, body is ``length`` bytes and crc is CRC-16/CCITT-FALSE (big-endian) over
header + body.
"""

import struct

PROTOCOL_VERSION = 1
MAX_BODY = 32
HEADER_LEN = 3
CRC_LEN = 2
MAX_FRAME = HEADER_LEN + MAX_BODY + CRC_LEN      # decoded bytes
MAX_ENCODED = MAX_FRAME + MAX_FRAME // 254 + 1   # COBS overhead, delimiters excluded

# message types
HELLO = 0x01        # host -> MCU: u8 protocol version wanted; resets both link states
HELLO_REPLY = 0x02  # MCU -> host: u8 protocol version, u32 MCU ms, u16 boot id, ascii firmware version
HEARTBEAT = 0x03    # both ways, 1 Hz: u32 sender ms
ACK = 0x04          # both ways: u8 acknowledged seq
BUTTON = 0x10       # MCU -> host, reliable: u8 side, u32 MCU ms of the press edge, u16 press counter
DISPLAY = 0x20      # host -> MCU, reliable: u8 side, 4 x u8 segment bytes, u8 flags
STATUS = 0x30       # MCU -> host, reliable: u8 flags (bit0 display ok), u16 i2c error count

RELIABLE = (BUTTON, DISPLAY, STATUS)
KNOWN = (HELLO, HELLO_REPLY, HEARTBEAT, ACK, BUTTON, DISPLAY, STATUS)

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

def pack_hello(version=PROTOCOL_VERSION):
    return struct.pack(">B", version)


def pack_hello_reply(version, mcu_ms, boot_id, firmware):
    return struct.pack(">BIH", version, mcu_ms & 0xFFFFFFFF, boot_id & 0xFFFF) + firmware.encode()[:20]


def unpack_hello_reply(body):
    """-> (version, mcu_ms, boot_id, firmware str). Raises ValueError when too short."""
    if len(body) < 7:
        raise ValueError("HELLO_REPLY body too short")
    version, mcu_ms, boot_id = struct.unpack(">BIH", body[:7])
    return version, mcu_ms, boot_id, bytes(body[7:]).decode("ascii", "replace")


def pack_heartbeat(ms):
    return struct.pack(">I", ms & 0xFFFFFFFF)


def pack_button(side_index, mcu_ms, counter):
    return struct.pack(">BIH", side_index, mcu_ms & 0xFFFFFFFF, counter & 0xFFFF)


def unpack_button(body):
    """-> (side index, MCU ms, press counter). Raises ValueError on a bad length or side."""
    if len(body) != 7:
        raise ValueError("BUTTON body must be 7 bytes")
    side, ms, counter = struct.unpack(">BIH", body)
    if side >= len(SIDES):
        raise ValueError(f"BUTTON side {side} out of range")
    return side, ms, counter


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

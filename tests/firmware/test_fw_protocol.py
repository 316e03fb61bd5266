"""Wire format: COBS, CRC-16, frame checks; garbage never yields a frame."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge.firmware import proto


def test_crc16_ccitt_false_check_value() -> None:
    # the catalogue check value of CRC-16/CCITT-FALSE over "123456789"
    assert proto.crc16(b"123456789") == 0x29B1


@pytest.mark.parametrize("data,encoded", [
    (b"", b"\x01"),
    (b"\x00", b"\x01\x01"),
    (b"\x00\x00", b"\x01\x01\x01"),
    (b"\x11\x22\x00\x33", b"\x03\x11\x22\x02\x33"),
    (b"\x11\x00\x00\x00", b"\x02\x11\x01\x01\x01"),
    (bytes(range(1, 255)), b"\xff" + bytes(range(1, 255)) + b"\x01"),
])
def test_cobs_known_vectors(data: bytes, encoded: bytes) -> None:
    assert proto.cobs_encode(data) == encoded
    assert proto.cobs_decode(encoded) == data


@given(st.binary(max_size=600))
@settings(max_examples=200, deadline=None)
def test_cobs_round_trip_has_no_zero(data: bytes) -> None:
    enc = proto.cobs_encode(data)
    assert 0 not in enc
    assert proto.cobs_decode(enc) == data


def test_cobs_decode_rejects_overrun() -> None:
    with pytest.raises(ValueError):
        proto.cobs_decode(b"\x05\x11\x22")


def test_frame_round_trip_and_split_stream() -> None:
    body = proto.pack_button(1, 123456, 7)
    wire = proto.encode_frame(proto.BUTTON, 42, body) + proto.encode_frame(proto.HEARTBEAT, 0, proto.pack_heartbeat(9))
    dec = proto.FrameDecoder()
    got = []
    for b in wire:  # byte by byte, as a slow UART would deliver it
        got += dec.feed(bytes([b]))
    assert got == [(proto.BUTTON, 42, body), (proto.HEARTBEAT, 0, b"\x00\x00\x00\x09")]
    assert proto.unpack_button(got[0][2]) == (1, 123456, 7, 0)
    assert dec.dropped == {}


def test_bad_crc_truncated_and_unknown_type_are_dropped_and_counted() -> None:
    good = proto.encode_frame(proto.BUTTON, 1, proto.pack_button(0, 5, 1))
    raw = proto.cobs_decode(good[1:-1])
    flipped = bytearray(raw)
    flipped[4] ^= 0x01
    bad_crc = proto.cobs_encode(bytes(flipped)) + b"\x00"
    truncated = good[:4] + b"\x00"
    wrong_len = bytearray(raw)
    wrong_len[2] += 1
    unknown = bytes((0x7E, 0, 0))
    crc = proto.crc16(unknown)
    unknown_frame = proto.cobs_encode(unknown + bytes((crc >> 8, crc & 0xFF))) + b"\x00"
    dec = proto.FrameDecoder()
    frames = dec.feed(bad_crc + truncated + proto.cobs_encode(bytes(wrong_len)) + b"\x00" + unknown_frame + good)
    assert frames == [(proto.BUTTON, 1, proto.pack_button(0, 5, 1))]
    assert dec.dropped.get(proto.DROP_CRC) == 1
    assert dec.dropped.get(proto.DROP_LENGTH, 0) + dec.dropped.get(proto.DROP_SHORT, 0) + \
        dec.dropped.get(proto.DROP_COBS, 0) == 2
    assert dec.dropped.get(proto.DROP_TYPE) == 1


def test_oversize_garbage_is_dropped_and_decoder_resynchronises() -> None:
    dec = proto.FrameDecoder()
    assert dec.feed(bytes([0x55]) * 1000) == []
    frames = dec.feed(b"\x00" + proto.encode_frame(proto.HEARTBEAT, 0, proto.pack_heartbeat(1)))
    assert len(frames) == 1 and dec.dropped[proto.DROP_OVERSIZE] == 1


def test_random_noise_never_produces_a_button_frame() -> None:
    rng = random.Random(4)
    dec = proto.FrameDecoder()
    buttons = 0
    for _ in range(300):
        noise = bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 64)))
        buttons += sum(1 for f in dec.feed(noise) if f[0] == proto.BUTTON)
    assert buttons == 0
    assert sum(dec.dropped.values()) >= 30


def test_body_validation() -> None:
    with pytest.raises(ValueError):
        proto.encode_frame(proto.DISPLAY, 0, bytes(proto.MAX_BODY + 1))
    with pytest.raises(ValueError, match="side"):
        proto.unpack_button(proto.pack_button(9, 0, 0))
    with pytest.raises(ValueError):
        proto.unpack_display(b"\x00\x01")
    with pytest.raises(ValueError):
        proto.unpack_hello_reply(b"\x01")
    assert proto.unpack_display(proto.pack_display(1, b"\x3f\x06\x5b\x4f", 1)) == (1, b"\x3f\x06\x5b\x4f", 1)
    assert proto.unpack_status(proto.pack_status(False, 3)) == (False, 3)

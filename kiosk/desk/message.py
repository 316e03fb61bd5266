"""One MQTT message as the desk sees it: the topic grammar and the envelope checked before anything is used.

Topics read (``root`` e.g. ``scrabble/local``)::

    {root}/judge/board/{N}/event/{type}   live events (stream envelope, kind "event"), QoS 1
    {root}/judge/board/{N}/tick           live clock tick (kind "tick")
    {root}/judge/board/{N}/flags          table flags: {"board": N, "judge_called": bool, "devices":
                                          {"camera": "ok|degraded|down|absent", ...}, "journal": "sentence"|null}
    {root}/board/{N}/status               retained presence (kind "presence"); the kiosk's Last Will = offline

A message is refused (never raised) with a :class:`Bad` kind when it is too large, not JSON, not an object,
on a topic outside that grammar, or when its envelope contradicts its topic: another board than the topic's
(a kiosk may only write its own board's topics, so that is a forgery), another event type, the wrong channel,
missing or mistyped fields.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, TypeGuard

MAX_PAYLOAD = 64 * 1024  #: bytes; a stream event is well under 4 KB


class Bad(StrEnum):
    """Why a message was refused; :attr:`sentence` is what the desk page shows."""

    TOO_LARGE = "too_large"
    NOT_JSON = "not_json"
    NOT_OBJECT = "not_object"
    TOPIC = "topic"
    FORGED = "forged"
    FIELDS = "fields"
    REFUSED = "refused"
    CONFLICT = "conflict"

    @property
    def sentence(self) -> str:
        """What the desk page says about this kind of message (a sentence)."""
        return _SENTENCES[self]


_SENTENCES = {
    Bad.TOO_LARGE: "The message was too large to be a kiosk message.",
    Bad.NOT_JSON: "The message was not readable JSON text.",
    Bad.NOT_OBJECT: "The message was not a kiosk stream message.",
    Bad.TOPIC: "The message came on a topic the desk does not read.",
    Bad.FORGED: "The message claimed another table or event than its topic (forged or misrouted).",
    Bad.FIELDS: "The message lacked a field or had a field of the wrong kind.",
    Bad.REFUSED: "The referee refused the event: it does not follow the table's game so far.",
    Bad.CONFLICT: "The event differs from the one already recorded under the same number.",
}


class Topic(StrEnum):
    """Which of the desk's topics a message came on."""

    EVENT = "event"
    TICK = "tick"
    FLAGS = "flags"
    STATUS = "status"


@dataclass(frozen=True)
class Message:
    """A checked message: ``topic`` kind, ``board`` (from the topic), ``body`` (the decoded JSON object)."""

    topic: Topic
    board: int
    body: dict[str, Any]


@dataclass(frozen=True)
class Refused:
    """A refused message: why, and a short description (topic and problem) for the desk's list."""

    bad: Bad
    detail: str


def subscriptions(root: str) -> list[str]:
    """The desk's MQTT subscriptions under ``root``."""
    return [f"{root}/judge/board/+/event/#", f"{root}/judge/board/+/tick", f"{root}/judge/board/+/flags",
            f"{root}/board/+/status"]


def _int(x: Any) -> TypeGuard[int]:
    return isinstance(x, int) and not isinstance(x, bool)


def parse(root: str, topic: str, payload: bytes) -> Message | Refused:
    """Check one message (see module doc). Never raises."""
    short = topic[:120]
    if len(payload) > MAX_PAYLOAD:
        return Refused(Bad.TOO_LARGE, f"{short}: {len(payload)} bytes")
    if not topic.startswith(root + "/"):
        return Refused(Bad.TOPIC, short)
    parts = topic[len(root) + 1:].split("/")
    judge = parts[:1] == ["judge"]
    if judge:
        parts = parts[1:]
    if len(parts) < 3 or parts[0] != "board" or not parts[1].isdigit() or len(parts[1]) > 6:
        return Refused(Bad.TOPIC, short)
    board = int(parts[1])
    rest = parts[2:]
    if not judge and rest == ["status"]:
        kind = Topic.STATUS
    elif judge and rest == ["tick"]:
        kind = Topic.TICK
    elif judge and rest == ["flags"]:
        kind = Topic.FLAGS
    elif judge and len(rest) == 2 and rest[0] == "event":
        kind = Topic.EVENT
    else:
        return Refused(Bad.TOPIC, short)
    try:
        body = json.loads(payload)
    except (ValueError, UnicodeDecodeError):
        return Refused(Bad.NOT_JSON, f"{short}: {payload[:40]!r}")
    if not isinstance(body, dict):
        return Refused(Bad.NOT_OBJECT, f"{short}: a JSON {type(body).__name__}")
    if "board" in body and body["board"] != board:
        return Refused(Bad.FORGED, f"{short}: says board {body['board']!r}")
    if kind is Topic.FLAGS:
        return _flags(short, board, body)
    want = {Topic.EVENT: "event", Topic.TICK: "tick", Topic.STATUS: "presence"}[kind]
    if body.get("kind") != want:
        return Refused(Bad.NOT_OBJECT, f"{short}: kind {body.get('kind')!r}, expected {want!r}")
    if not _int(body.get("board")):
        return Refused(Bad.FIELDS, f"{short}: no board number")
    if kind is Topic.STATUS:
        if not isinstance(body.get("online"), bool):
            return Refused(Bad.FIELDS, f"{short}: online must be true or false")
        return Message(kind, board, body)
    if body.get("channel") != "judge":
        return Refused(Bad.FORGED, f"{short}: channel {body.get('channel')!r} on a judge topic")
    gid, seq, ts = body.get("game_id"), body.get("seq"), body.get("ts")
    if not isinstance(gid, str) or not gid or len(gid) > 128 or not _int(seq) or seq < 0 or not _int(ts):
        return Refused(Bad.FIELDS, f"{short}: game_id, seq or ts missing or mistyped")
    if kind is Topic.TICK:
        if not isinstance(body.get("clock"), dict):
            return Refused(Bad.FIELDS, f"{short}: tick without a clock")
        return Message(kind, board, body)
    ev = body.get("event")
    if not isinstance(ev, dict) or not isinstance(ev.get("type"), str) or not _int(ev.get("t")):
        return Refused(Bad.FIELDS, f"{short}: event without a type and time")
    if ev["type"] != rest[1]:
        return Refused(Bad.FORGED, f"{short}: carries a {ev['type']!r} event")
    if seq < 1 or (ev["type"] == "game_started") != (seq == 1):
        return Refused(Bad.FIELDS, f"{short}: event number {seq} does not fit a {ev['type']!r} event")
    return Message(kind, board, body)


def _flags(short: str, board: int, body: dict[str, Any]) -> Message | Refused:
    called = body.get("judge_called", False)
    devices = body.get("devices", {})
    journal = body.get("journal")
    if not isinstance(called, bool) or not isinstance(devices, dict) or \
            not all(isinstance(k, str) and isinstance(v, str) for k, v in devices.items()) or \
            not (journal is None or isinstance(journal, str)):
        return Refused(Bad.FIELDS, f"{short}: flags need judge_called (bool), devices (name: state), journal")
    return Message(Topic.FLAGS, board, {"judge_called": called, "devices": dict(list(devices.items())[:8]),
                                        "journal": journal[:200] if journal else None})

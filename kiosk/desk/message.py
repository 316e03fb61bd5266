"""One MQTT message as the desk sees it: the topic grammar and the envelope checked before anything is used.

Topics read (``root`` e.g. ``scrabble/local``)::

    {root}/judge/board/{N}/event/{type}   live events (stream envelope, kind "event"), QoS 1
    {root}/judge/board/{N}/tick           live clock tick (kind "tick")
    {root}/judge/board/{N}/snapshot       retained live snapshot (kind "snapshot") with the game's events so far
                                          (``events``: [{"ts", "event"}], seq i+1 at index i); read at QoS 0, so
                                          the broker queues none for an absent desk: the retained one comes
                                          at every (re)subscription
    {root}/judge/board/{N}/flags          table flags: {"board": N, "judge_called": bool, "devices":
                                          {"camera": "ok|degraded|down|absent", ...}, "journal": "sentence"|null}
    {root}/board/{N}/status               retained presence (kind "presence"); the kiosk's Last Will = offline

A message is refused (never raised) with a :class:`Bad` kind when it is too large, not JSON, not an object,
on a topic outside that grammar, or when its envelope contradicts its topic: another board than the topic's
(a kiosk may only write its own board's topics, so that is a forgery), another event type, the wrong channel,
missing or mistyped fields, or text holding a control character (a line break, tab ...: in a player's name it
would add lines to the GCG and .t exports), named with the field.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, TypeGuard

from kiosk.rules.counts import counted
from kiosk.rules.names import has_control, name_problem

MAX_PAYLOAD = 64 * 1024  #: bytes; a stream event is well under 4 KB
#: bytes; a judge snapshot with a whole game's events: about 14 KB for 110 events, so room for some 2000
MAX_SNAPSHOT_PAYLOAD = 256 * 1024


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
    STREAMED_AGAIN = "streamed_again"

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
    Bad.STREAMED_AGAIN: "A game the desk already has was streamed again with other moves under the same game id, by "
                        "a kiosk run whose version the desk does not keep: a later run streamed the game again, the "
                        "director replaced that version, its referee refused one of its events, or the game has as "
                        "many other versions as the desk keeps.",
}


class Topic(StrEnum):
    """Which of the desk's topics a message came on."""

    EVENT = "event"
    TICK = "tick"
    SNAPSHOT = "snapshot"
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


def subscriptions(root: str) -> list[tuple[str, int]]:
    """The desk's MQTT subscriptions under ``root`` with their QoS: events, flags and presence at QoS 1 (queued
    by the broker while the desk is away); ticks and snapshots at QoS 0 (only the latest matters: the retained
    snapshot comes again at every subscription)."""
    return [(f"{root}/judge/board/+/event/#", 1), (f"{root}/judge/board/+/tick", 1),
            (f"{root}/judge/board/+/flags", 1), (f"{root}/judge/board/+/snapshot", 0), (f"{root}/board/+/status", 1)]


def _int(x: Any) -> TypeGuard[int]:
    return isinstance(x, int) and not isinstance(x, bool)


def _classify(root: str, topic: str) -> tuple[Topic, int, list[str]] | None:
    """(topic kind, board, the levels after the board) of a topic in the desk's grammar, or None."""
    if not topic.startswith(root + "/"):
        return None
    parts = topic[len(root) + 1:].split("/")
    judge = parts[:1] == ["judge"]
    if judge:
        parts = parts[1:]
    if len(parts) < 3 or parts[0] != "board" or not parts[1].isdigit() or len(parts[1]) > 6:
        return None
    rest = parts[2:]
    if not judge and rest == ["status"]:
        kind = Topic.STATUS
    elif judge and rest in (["tick"], ["flags"], ["snapshot"]):
        kind = Topic(rest[0])
    elif judge and len(rest) == 2 and rest[0] == "event":
        kind = Topic.EVENT
    else:
        return None
    return kind, int(parts[1]), rest


def parse(root: str, topic: str, payload: bytes) -> Message | Refused:
    """Check one message (see module doc). Never raises."""
    short = topic[:120]
    where = _classify(root, topic)
    cap = MAX_SNAPSHOT_PAYLOAD if where is not None and where[0] is Topic.SNAPSHOT else MAX_PAYLOAD
    if len(payload) > cap:
        return Refused(Bad.TOO_LARGE, f"{short}: {len(payload)} bytes")
    if where is None:
        return Refused(Bad.TOPIC, short)
    kind, board, rest = where
    try:
        body = json.loads(payload)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return Refused(Bad.NOT_JSON, f"{short}: {payload[:40]!r}")
    if not isinstance(body, dict):
        return Refused(Bad.NOT_OBJECT, f"{short}: a JSON {type(body).__name__}")
    if "board" in body and body["board"] != board:
        return Refused(Bad.FORGED, f"{short}: says board {body['board']!r}")
    if kind is Topic.FLAGS:
        return _flags(short, board, body)
    want = {Topic.EVENT: "event", Topic.TICK: "tick", Topic.SNAPSHOT: "snapshot", Topic.STATUS: "presence"}[kind]
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
        clock = body.get("clock")
        if not isinstance(clock, dict):
            return Refused(Bad.FIELDS, f"{short}: tick without a clock")
        running, left = clock.get("running"), clock.get("remaining_ms")
        if not (running is None or _int(running)) or not (left is None or isinstance(left, list) and
                                                          len(left) <= 4 and all(_int(x) for x in left)):
            return Refused(Bad.FIELDS, f"{short}: the tick's clock needs running (a player or null) and "
                                       "remaining_ms (whole milliseconds per player, or null)")
        return Message(kind, board, body)
    if has_control(gid):
        return Refused(Bad.FIELDS, f"{short}: the game_id {gid[:40]!r} holds a control character")
    if kind is Topic.SNAPSHOT:
        return _snapshot(short, board, body)
    ev = body.get("event")
    if not isinstance(ev, dict) or not isinstance(ev.get("type"), str) or not _int(ev.get("t")):
        return Refused(Bad.FIELDS, f"{short}: event without a type and time")
    if ev["type"] != rest[1]:
        return Refused(Bad.FORGED, f"{short}: carries a {ev['type']!r} event")
    if seq < 1 or (ev["type"] == "game_started") != (seq == 1):
        return Refused(Bad.FIELDS, f"{short}: event number {seq} does not fit a {ev['type']!r} event")
    problem = _control_in(ev) or preset_problem(ev)
    if problem:
        return Refused(Bad.FIELDS, f"{short}: {problem}")
    return Message(kind, board, body)


def preset_problem(ev: dict[str, Any]) -> str | None:
    """A sentence naming what the referee cannot take in the preset of a ``game_started`` event (a number that
    is not whole, out of range, a key of the wrong kind), or None (also for other events). The referee would
    otherwise score with it: a bingo bonus of 1e308 made the game's GCG export fail."""
    if ev.get("type") != "game_started":
        return None
    from kiosk.referee.presets import PresetError, checked_preset_from_dict

    try:
        checked_preset_from_dict(ev.get("preset"), "the preset")  # type: ignore[arg-type]  # not a dict: refused
    except PresetError as exc:
        return f"the game_started event's preset cannot be played: {exc}"
    return None


def _control_in(ev: dict[str, Any]) -> str | None:
    """A sentence naming the first text of event ``ev`` (a player's name, a reason ...) that holds a control
    character, or None. Nothing a kiosk sends holds one; a name with a line break would add lines to the
    desk's GCG and .t exports."""
    todo: list[tuple[str, Any]] = [(k, v) for k, v in ev.items()]
    while todo:
        key, value = todo.pop(0)
        if isinstance(value, str) and key.startswith("players") and (why := name_problem(value)) is not None:
            return f"the player name {value[:40]!r} in the {ev['type']} event {why}; the desk does not take it"
        if isinstance(value, str) and has_control(value):
            return f"the {key} {value[:40]!r} in the {ev['type']} event holds a control character (a line break, " \
                   "tab or the like); the desk does not take it"
        if isinstance(value, dict):
            todo += [(f"{key}.{k}", v) for k, v in value.items()]
        elif isinstance(value, list):
            todo += [(key, v) for v in value]
    return None


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


def _snapshot(short: str, board: int, body: dict[str, Any]) -> Message | Refused:
    """A judge snapshot: its ``events`` must be the game's events 1..seq, each ``{"ts": int, "event": {"type",
    "t"}}``, the first (and only the first) a game_started. A snapshot without ``events`` (a kiosk of an earlier
    version) is taken with none: the desk then learns nothing from it."""
    events = body.get("events", [])
    if not isinstance(events, list) or (events and len(events) != body["seq"]):
        return Refused(Bad.FIELDS, f"{short}: events must list the game's {counted(body['seq'], 'event')}")
    for seq, item in enumerate(events, 1):
        ev = item.get("event") if isinstance(item, dict) else None
        if not isinstance(ev, dict) or not _int(item.get("ts")) or not isinstance(ev.get("type"), str) \
                or not _int(ev.get("t")) or (ev["type"] == "game_started") != (seq == 1):
            return Refused(Bad.FIELDS, f"{short}: event {seq} of the snapshot is not a timed event in its place")
        problem = _control_in(ev) or preset_problem(ev)
        if problem:
            return Refused(Bad.FIELDS, f"{short}: event {seq} of the snapshot: {problem}")
    boot = body.get("boot")
    return Message(Topic.SNAPSHOT, board, {"game_id": body["game_id"], "seq": body["seq"], "ts": body["ts"],
                                          "events": events, "boot": boot if isinstance(boot, str) else ""})

"""Writes ``kiosk/stream/schema/message.schema.json`` from the referee's event model (run after adding an event
type: ``python -m kiosk.stream.schema_gen``). The test suite checks the file is up to date."""

from __future__ import annotations

import json
import sys
from dataclasses import fields
from typing import Any

from kiosk.devices.health import STATES
from kiosk.files import write_atomic
from kiosk.referee.events import EVENT_TYPES
from kiosk.stream.envelope import SCHEMA_PATH, SCHEMA_VERSION

_TILES = {"type": "array", "items": {"type": "array", "prefixItems": [
    {"type": "integer", "minimum": 0, "maximum": 224}, {"type": "string", "minLength": 1, "maxLength": 1}],
    "minItems": 2, "maxItems": 2}}
#: a judge snapshot's ``events``: the game's events so far (seq i+1 at index i), for a subscriber joining mid-game
_EVENTS = {"type": "array", "description": "judge snapshots: the game's events so far, seq i+1 at index i, each "
           "with the wall-clock ts (ms) the kiosk accepted it; a subscriber joining mid-game folds them, then "
           "follows the live events by seq",
           "items": {"type": "object", "required": ["ts", "event"], "additionalProperties": False,
                     "properties": {"ts": {"type": "integer", "minimum": 0}, "event": {"$ref": "#/$defs/event"}}}}
_KINDS: dict[str, dict[str, Any]] = {
    "int": {"type": "integer"}, "bool": {"type": "boolean"}, "str": {"type": "string"}, "dict": {"type": "object"},
    "int | None": {"type": ["integer", "null"]},
    "tuple[str, ...]": {"type": "array", "items": {"type": "string"}}, "tuple[tuple[int, str], ...]": _TILES,
}


def _event_defs() -> dict[str, Any]:
    defs = {}
    for name, cls in sorted(EVENT_TYPES.items()):
        props: dict[str, Any] = {"type": {"const": name},
                                 "t": {"type": "integer", "minimum": 0, "description": "kiosk time in ms"}}
        for f in fields(cls):
            if f.name == "t":
                continue
            kind = _KINDS.get(str(f.type))
            if kind is None:
                raise TypeError(f"schema_gen: no JSON type for {name}.{f.name}: {f.type}")
            props[f.name] = dict(kind)
            if f.name == "player":
                props[f.name]["minimum"] = -1
        defs[f"ev_{name}"] = {"type": "object", "description": (cls.__doc__ or "").strip().split("\n")[0],
                              "properties": props, "required": ["type", "t"], "additionalProperties": False}
    return defs


def _state_defs() -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """The schema's ``clock``, ``play`` and ``state`` definitions (a snapshot's state)."""
    clock = {"type": ["object", "null"], "required": ["running", "remaining_ms", "used_ms", "game_ms", "at_ms"],
             "properties": {"running": {"type": ["integer", "null"]},
                            "remaining_ms": {"type": ["array", "null"], "items": {"type": "integer"}},
                            "used_ms": {"type": "array", "items": {"type": "integer"}},
                            "game_ms": {"type": ["integer", "null"]}, "at_ms": {"type": "integer"}},
             "additionalProperties": False}
    play = {"type": ["object", "null"], "required": ["player", "coordinate", "word", "score", "tiles", "withdrawn"],
            "properties": {"player": {"type": "integer"}, "coordinate": {"type": "string"}, "word": {"type": "string"},
                           "words": {"type": "array", "items": {"type": "string"}}, "score": {"type": "integer"},
                           "tiles": _TILES, "squares": {"type": "array", "items": {"type": "string"}},
                           "withdrawn": {"type": "boolean"}, "bonus": {"type": "integer"},
                           "outplay": {"type": "boolean"}, "t": {"type": "integer"}, "bingo": {"type": "boolean"}}}
    phases = ["not_started", "playing", "designating", "challenged", "removing", "outplay", "rack_entry", "over"]
    state = {"type": "object",
             "required": ["phase", "preset", "players", "on_move", "turn", "scores", "board", "bag", "racks", "unseen",
                          "clock", "last_play", "last_move", "blanks", "window_open", "challenge", "ruling",
                          "neutralised", "history", "result", "last_t", "events"],
             "properties": {
                 "phase": {"enum": phases}, "preset": {"type": "string"},
                 "players": {"type": "array", "items": {"type": "string"}, "maxItems": 4},
                 "on_move": {"type": ["integer", "null"]}, "turn": {"type": "integer"},
                 "scores": {"type": "array", "items": {"type": "integer"}},
                 "board": {"type": "array", "items": {"type": "string", "pattern": "^\\S{15}$"},
                           "minItems": 15, "maxItems": 15},
                 "bag": {"type": "integer", "minimum": 0},
                 "racks": {"type": "array", "items": {"type": "integer", "minimum": 0}},
                 "unseen": {"type": "object", "required": ["tiles", "count"],
                            "properties": {"tiles": {"type": "string"}, "count": {"type": "integer", "minimum": 0}}},
                 "clock": {"$ref": "#/$defs/clock"}, "last_play": {"$ref": "#/$defs/play"},
                 "last_move": {"type": "string"},
                 "blanks": {"type": "array", "items": {"type": "object", "required": ["square", "letter"]}},
                 "window_open": {"type": "boolean"}, "hold_by": {"type": ["integer", "null"]},
                 "outplay_accepted_by": {"type": "array", "items": {"type": "integer", "minimum": 0}},
                 "challenge": {"type": ["object", "null"]}, "ruling": {"type": "string"},
                 "neutralised": {"type": "string"},
                 "history": {"type": "array",
                             "items": {"type": "object", "required": ["kind", "player", "points", "total", "text"]}},
                 "result": {"type": ["object", "null"]},
                 "last_t": {"type": "integer"}, "events": {"type": "integer", "minimum": 0},
             }}
    return clock, play, state


def build_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of stream messages, version :data:`SCHEMA_VERSION`."""
    common = {
        "v": {"const": SCHEMA_VERSION, "description": "schema version"},
        "kind": {"enum": ["event", "tick", "snapshot", "presence", "flags"]},
        "channel": {"enum": ["judge", "public"], "description": "judge: live; public: behind the broadcast delay"},
        "game_id": {"type": "string"},
        "board": {"type": "integer", "minimum": 0, "description": "table number"},
        "boot": {"type": "string", "minLength": 1, "description": "id of this kiosk run"},
        "n": {"type": "integer", "minimum": 1, "description": "message counter per (boot, channel)"},
        "seq": {"type": "integer", "minimum": 0,
                "description": "game event sequence number (the journal's); ticks/snapshots: last event included"},
        "ts": {"type": "integer", "minimum": 0, "description": "wall clock, ms since the Unix epoch (UTC)"},
        "delay_ms": {"type": "integer", "minimum": 0, "description": "broadcast delay applied"},
    }
    clock, play, state = _state_defs()
    defs = _event_defs()
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"https://scrabble-referee-kiosk.invalid/stream/message/{SCHEMA_VERSION}",
        "title": f"Scrabble referee kiosk: stream message, version {SCHEMA_VERSION}",
        "description": "Every message the kiosk streams (MQTT payload, Server-Sent-Events data). See docs/stream.md.",
        "type": "object",
        "required": list(common),
        "properties": common,
        "oneOf": [
            {"properties": {"kind": {"const": "event"}, "event": {"$ref": "#/$defs/event"}}, "required": ["event"]},
            {"properties": {"kind": {"const": "snapshot"}, "state": {"$ref": "#/$defs/state"},
                            "events": {"$ref": "#/$defs/events"}}, "required": ["state"]},
            {"properties": {"kind": {"const": "tick"}, "clock": {"$ref": "#/$defs/clock"},
                            "on_move": {"type": ["integer", "null"]}, "phase": {"type": "string"}},
             "required": ["clock"]},
            {"properties": {"kind": {"const": "presence"}, "online": {"type": "boolean"}}, "required": ["online"]},
            {"properties": {"kind": {"const": "flags"}, "channel": {"const": "judge"},
                            "judge_called": {"type": "boolean"},
                            "devices": {"type": "object", "additionalProperties": {"enum": list(STATES)}},
                            "journal": {"type": ["string", "null"]}},
             "required": ["judge_called", "devices", "journal"]},
        ],
        "$defs": {"event": {"oneOf": [{"$ref": f"#/$defs/{k}"} for k in sorted(defs)]}, "events": _EVENTS, "clock": clock,
                  "play": play, "state": state, **defs},
    }


def schema_text() -> str:
    """The schema file's exact text."""
    return json.dumps(build_schema(), indent=1) + "\n"


def main() -> int:
    write_atomic(SCHEMA_PATH, schema_text())
    print(f"wrote {SCHEMA_PATH}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Desk defects of the twentieth session: a preset the referee cannot take is refused at ingest; the ingest's
warnings reach the user once (the desk command prints them, the log does not print them again)."""

from __future__ import annotations

import json
import logging
import sys
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from desk_helpers import ROOT, game, messages, snapshot_message  # noqa: E402

from kiosk.desk.event import load_event  # noqa: E402
from kiosk.desk.ingest import BrokerConfig, DeskIngest  # noqa: E402
from kiosk.desk.message import Bad, Refused, parse  # noqa: E402
from kiosk.desk.store import ResultsStore  # noqa: E402
from kiosk.desk.tables import Tables  # noqa: E402


def _bad_bonus(payload: bytes, value: object) -> bytes:
    body = json.loads(payload)
    ev = body["event"] if "event" in body else body["events"][0]["event"]
    ev["preset"]["scoring"]["bingo_bonus"] = value
    return json.dumps(body).encode()


def test_a_preset_with_a_float_bingo_bonus_is_refused_at_ingest_not_a_500():
    """bingo_bonus = 1e308 was taken; the game's GCG export then failed ('Unknown format code d')."""
    events = game()
    topic, payload = messages(events, 3)[0]
    for value in (1e308, 50.0, -5, True):
        got = parse(ROOT, topic, _bad_bonus(payload, value))
        assert isinstance(got, Refused) and got.bad is Bad.FIELDS, value
        assert "preset cannot be played: the preset: scoring.bingo_bonus" in got.detail
    stopic, spayload = snapshot_message(events[:3], 3)
    got = parse(ROOT, stopic, _bad_bonus(spayload, 1e308))
    assert isinstance(got, Refused) and "scoring.bingo_bonus: expected a whole number" in got.detail
    assert not isinstance(parse(ROOT, topic, payload), Refused)   # the kiosk's own preset is taken


def test_ingest_warnings_are_not_also_logged_as_warnings(tmp_path, caplog):
    """The desk command prints each ingest error as 'warning: ...'; logging it at WARNING printed it twice."""
    folder = tmp_path / "e"
    folder.mkdir()
    (folder / "event.toml").write_text('rounds = 1\n[[division]]\nname = "A"\nplayers = ["X", "Y"]\n')
    ingest = DeskIngest(Tables(load_event(folder), ResultsStore(tmp_path / "d.sqlite")), threading.Lock(),
                        BrokerConfig("127.0.0.1", 1, root=ROOT, client_id="x"))
    with caplog.at_level(logging.WARNING):
        ingest._error("another client with id x took over the connection")
    assert list(ingest.errors) == ["another client with id x took over the connection"]
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]

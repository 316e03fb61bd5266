"""A game streamed again with other moves under its game id (a director fixed a record and ran ``kiosk
stream-game`` on it again, its ``#id`` unchanged): the desk keeps the game as it came and keeps the other version
beside it, never as events the referee refused, duplicates or events waiting for a gap (docs/desk.md, "A game
streamed again with other moves"; the director taking it: tests/desk/test_desk_other_version.py)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from desk_helpers import ROOT, event_folder, messages, snapshot_message  # noqa: E402

from kiosk.desk.event import load_event  # noqa: E402
from kiosk.desk.message import Bad, parse  # noqa: E402
from kiosk.desk.store import ResultsStore  # noqa: E402
from kiosk.desk.tables import Tables  # noqa: E402
from kiosk.referee.events import Event  # noqa: E402
from kiosk.referee.records import events_from_gcg  # noqa: E402
from kiosk.rules.gcg import parse_gcg  # noqa: E402
from shared_data import SHARED, needs_shared  # noqa: E402

DOUG = SHARED / "corpus" / "gcg" / "real" / "domino14_macondo__gcgio_testdata__doug_v_emely.gcg"
PHONY = ">emely: DEIILTZ 4B TIL.. +24 79\n>emely: DEIILTZ --  -24 55\n"


def _versions() -> list[list[Event]]:
    """r1-b3.gcg as first streamed (emely's phony written as a pass), as fixed, and fixed with a name changed."""
    fixed = "#id r1 b3\n" + DOUG.read_text()
    first = fixed.replace(PHONY, ">emely: DEIILTZ - +0 55\n")
    renamed = fixed.replace("#player2 emely emely", "#player2 emely Emely")
    return [events_from_gcg(parse_gcg(t, "r1-b3.gcg"), check_scores=True) for t in (first, fixed, renamed)]


def _feed(tables: Tables, msgs: list[tuple[str, bytes]]) -> None:
    tables.take_all(parse(ROOT, t, p) for t, p in msgs)


@needs_shared
def test_a_record_streamed_again_with_other_moves_is_kept_as_its_other_version(tmp_path):
    """The second run of the fixed record was 24 conflicts (a line each), one event 'refused by the referee' (its
    event 31 folded onto the finished game), two events left waiting for ever (the board flagged waiting) and 6
    duplicates; then it was counted and dropped, with no way to take it. Now it is the game's other version, whole,
    and a third run (a player's name fixed) differs at the game's start: it is the one waiting then."""
    first, fixed, renamed = _versions()
    assert first[:6] == fixed[:6] and first[6] != fixed[6] and fixed[0].game_id == "r1_b3"
    tables = Tables(load_event(event_folder(tmp_path)), ResultsStore(tmp_path / "desk.sqlite"))
    _feed(tables, messages(first, 3, game_id="r1_b3", boot="run-1"))
    (kept,) = tables.store.results()
    _feed(tables, messages(fixed, 3, game_id="r1_b3", boot="run-2"))
    _feed(tables, [snapshot_message(fixed, 3, game_id="r1_b3", boot="run-2")])   # its retained snapshot too
    st = tables.status()
    assert st["refused"] == {} and tables.duplicates == 6      # events 1-6: the same again
    (v,) = st["other_versions"]
    assert (v["board"], v["game_id"], v["from_event"], v["from_type"], v["sender"]["run"]) == (
        3, "r1_b3", 7, "play", "run-2")
    assert (v["desk"]["scores"], v["desk"]["events"], v["other"]["scores"], v["other"]["events"]) == (
        [451, 345], 30, [451, 345], 33)
    game = tables.tables[3].game
    assert game.events == [e.to_dict() for e in first] and not game.waiting
    assert tables.tile(3)["flags"]["waiting"] is False and tables.store.results() == [kept]
    # a third run with a player's name fixed differs at the game's start: its version waits from event 1 on
    _feed(tables, messages(renamed, 3, game_id="r1_b3", boot="run-3"))
    st = tables.status()
    assert st["refused"] == {} and [(x["from_event"], x["from_type"], x["sender"]["run"], x["other"]["players"])
                                    for x in st["other_versions"]] == [(1, "game_started", "run-3", ["doug", "Emely"])]
    assert "differs from event 1 (the start of the game) on" in st["other_versions"][0]["sentence"]
    assert game.events == [e.to_dict() for e in first] and tables.store.results() == [kept]


@needs_shared
def test_one_differing_event_without_a_new_start_is_a_conflict_and_the_kiosk_s_game_goes_on(tmp_path):
    """What was a conflict stays one: an event under the kiosk's own run that differs (a forgery with its login)
    does not stop the rest of the kiosk's game, and a kiosk restarted mid-game (a new run re-sending the same
    events from the start) is all duplicates, then goes on."""
    _, fixed, _ = _versions()
    tables = Tables(load_event(event_folder(tmp_path)), ResultsStore(tmp_path / "desk.sqlite"))
    msgs = messages(fixed, 3, game_id="r1_b3", boot="kiosk")
    _feed(tables, msgs[:10])
    forged = json.loads(msgs[9][1])
    forged["event"]["t"] += 1
    _feed(tables, [(msgs[9][0], json.dumps(forged).encode())])
    assert dict(tables.counts) == {Bad.CONFLICT.value: 1}
    _feed(tables, messages(fixed[:20], 3, game_id="r1_b3", boot="kiosk-restarted"))
    _feed(tables, messages(fixed, 3, game_id="r1_b3", boot="kiosk-restarted")[20:])
    assert dict(tables.counts) == {Bad.CONFLICT.value: 1} and tables.duplicates == 10
    assert tables.tables[3].game.events == [e.to_dict() for e in fixed]
    assert tables.store.results()[0].scores == (451, 345)
    assert tables.status()["other_versions"] == [] and tables.store.pending_versions() == []   # no version

"""What the desk makes of finished games: who won (the referee's verdict), and the exports of them."""

from __future__ import annotations

import csv
import io
import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from desk_helpers import ROOT, event_folder, messages, snapshot_message  # noqa: E402

from kiosk.desk.event import EventFileError, load_event  # noqa: E402
from kiosk.desk.exports import CSV_FIELDS, csv_cell, results_csv  # noqa: E402
from kiosk.desk.message import Bad, Refused, parse  # noqa: E402
from kiosk.desk.standings import standings  # noqa: E402
from kiosk.desk.store import Result, ResultsStore  # noqa: E402
from kiosk.desk.tables import Tables  # noqa: E402
from kiosk.referee.events import JudgeAdjustment  # noqa: E402
from kiosk.referee.referee import Referee  # noqa: E402
from kiosk.referee.simulate import random_game  # noqa: E402


def _tied_on_points_game() -> list:
    """A game under the ``team`` preset (tie rule "pre_adjustment") whose finals tie 687-687 after a judge's
    adjustment while before the racks Ann led 694-680: the referee gives Ann the win."""
    events = random_game("team", seed=1, players=("Ann", "Bob"))
    ref = Referee()
    for ev in events:
        assert ref.apply(ev).accepted
    events.append(JudgeAdjustment(t=ref.state.last_t + 1000, player=0, points=169, reason="scoring error"))
    assert ref.apply(events[-1]).accepted
    res = ref.state.result
    assert res.final == (687, 687) and res.before_racks == (694, 680) and res.wins == (1.0, 0.0)
    return events


def test_standings_take_the_referees_verdict_not_a_tie_on_the_finals(tmp_path):
    cfg = load_event(event_folder(tmp_path))
    store = ResultsStore(tmp_path / "desk.sqlite")
    tables = Tables(cfg, store)
    tables.take_all(parse(ROOT, t, p) for t, p in messages(_tied_on_points_game(), 1))
    [stored] = store.results()
    assert stored.scores == (687, 687) and stored.wins == (1.0, 0.0)
    st = {p["name"]: p for p in standings(cfg, store.results(), {})["A"]["players"]}
    assert (st["Ann"]["wins"], st["Ann"]["losses"]) == (1.0, 0.0)
    assert (st["Bob"]["wins"], st["Bob"]["losses"]) == (0.0, 1.0)
    store.close()
    again = ResultsStore(tmp_path / "desk.sqlite")   # the verdict is kept with the result
    assert again.results()[0].wins == (1.0, 0.0)


def test_a_result_without_the_verdict_counts_a_tie_on_points_half(tmp_path):
    cfg = load_event(event_folder(tmp_path))
    old = Result(1, "g1", 1, "A", (("Ann", 400), ("Bob", 400)), "naspa", "out_play", "", 30, 1)
    st = {p["name"]: p for p in standings(cfg, [old], {})["A"]["players"]}
    assert st["Ann"]["wins"] == st["Bob"]["wins"] == 0.5


def test_a_four_player_game_ranks_the_winner_first_then_the_others_by_points(tmp_path):
    cfg = load_event(event_folder(tmp_path))
    r = Result(1, "g4", 1, "A", (("Ann", 300), ("Bob", 310), ("Cid", 200), ("Dee", 200)), "team", "out_play", "",
               30, 1, wins=(1.0, 0.0, 0.0, 0.0))   # Bob lost by rule (a forfeit) with the most points
    st = {p["name"]: p for p in standings(cfg, [r], {})["A"]["players"]}
    assert st["Ann"]["wins"] == 3 and st["Bob"]["wins"] == 2 and st["Cid"]["wins"] == st["Dee"]["wins"] == 0.5


def test_results_csv_lists_every_player_of_a_four_player_game_with_a_spread_each():
    two = Result(1, "g1", 1, "A", (("Ann", 433), ("Bob", 402)), "naspa", "out_play", "", 30, 1)
    four = Result(2, "g4", 1, "A", (("Ada", 216), ("Bo", 117), ("Cy", 160), ("Di", 148)), "team", "out_play", "",
                  30, 1)
    lines = results_csv([two, four], "http://desk/").splitlines()
    assert lines[0] == ("round,division,board,game_id,player1,score1,player2,score2,player3,score3,player4,score4,"
                        "spread1,spread2,spread3,spread4,win1,win2,win3,win4,corrected,gcg")
    assert lines[1] == "1,A,1,g1,Ann,433,Bob,402,,,,,31,-31,,,,,,,0,http://desk/games/1/g1.gcg"
    assert lines[2] == "1,A,2,g4,Ada,216,Bo,117,Cy,160,Di,148,56,-99,-56,-68,,,,,0,http://desk/games/2/g4.gcg"
    only_two = results_csv([two]).splitlines()   # an event of two-player games keeps its columns
    assert only_two[0] == ",".join(CSV_FIELDS) and only_two[1].endswith(",Bob,402,31,,,0,/games/1/g1.gcg")


def test_csv_cells_a_spreadsheet_would_take_for_formulas_are_quoted_text():
    r = Result(1, "@g", 1, "-A", (('=HYPERLINK("http://x","y")', 400), ("+Bob", 300)), "naspa", "out_play", "",
               30, 1)
    row = next(csv.reader(io.StringIO(results_csv([r])[1:].split("\n", 1)[1])))
    assert row[1:8] == ["'-A", "1", "'@g", "'=HYPERLINK(\"http://x\",\"y\")", "400", "'+Bob", "300"]
    assert row[8] == "100"      # numbers stay numbers
    assert csv_cell("\tx") == "'\tx" and csv_cell("\rx") == "'\rx" and csv_cell("Ann") == "Ann"


def test_a_player_name_with_a_line_break_is_refused_at_ingest_and_named(tmp_path):
    cfg = load_event(event_folder(tmp_path))
    store = ResultsStore(tmp_path / "desk.sqlite")
    tables = Tables(cfg, store)
    msgs = messages(random_game("nsf", seed=2, players=("Ann", "Bob\nCy 0 1; 500")), 1)
    first = parse(ROOT, *msgs[0])
    assert isinstance(first, Refused) and first.bad is Bad.FIELDS
    assert first.detail.endswith("the player name 'Bob\\nCy 0 1; 500' in the game_started event holds a control "
                                 "character (a line break, tab or the like); the desk does not take it")
    tables.take_all(parse(ROOT, t, p) for t, p in msgs)
    assert store.results() == [] and tables.counts["fields"] >= 1
    snap = snapshot_message(random_game("nsf", seed=2, players=("Ann", "Bo\x1b[2J")), 1)
    refused = parse(ROOT, *snap)
    assert isinstance(refused, Refused) and "event 1 of the snapshot: the player name 'Bo\\x1b[2J' in the game_started" \
        in refused.detail


def test_an_event_file_name_with_a_control_character_is_refused(tmp_path):
    text = 'rounds = 1\n[[division]]\nname = "A"\nplayers = ["Ann", "Bo\\u001bCy"]\n'
    with pytest.raises(EventFileError, match=r"division A: player 2: name 'Bo\\x1bCy' holds a control character"):
        load_event(event_folder(tmp_path, text))


def test_the_desk_takes_names_by_the_kiosks_one_rule(tmp_path):
    # a right-to-left override or an invisible character in a name (refused by kiosk run and the GCG reader:
    # kiosk.rules.names) was taken by the desk, which checked line breaks and the like only
    text = 'rounds = 1\n[[division]]\nname = "A"\nplayers = ["Ann", "Bo\\u202eoB"]\n'
    with pytest.raises(EventFileError, match=re.escape("player 2: name 'Bo\\u202eoB' holds a right-to-left or left")):
        load_event(event_folder(tmp_path, text))
    msgs = messages(random_game("nsf", seed=2, players=("Ann", "Ann\u200b")), 1)
    first = parse(ROOT, *msgs[0])
    assert isinstance(first, Refused) and first.detail.endswith(
        "the player name 'Ann\\u200b' in the game_started event holds an invisible character (U+200B); the desk "
        "does not take it")

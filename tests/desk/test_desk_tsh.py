"""tsh .t export and standings: a round merged into a copy of the division's file, never the original."""

from __future__ import annotations

import dataclasses

import pytest

from kiosk.desk.event import load_event
from kiosk.desk.exports import results_csv, round_zip, tsh_text
from kiosk.desk.standings import standings
from kiosk.desk.store import Result
from kiosk.desk.tsh import Game, TshError, merge_round, parse_t, render_t

T_FILE = """# division A
Lee, Ann 1800 2 3; 400 380; board 1 2; p12 1 2
Brown, Bob 1700 1 4; 350 410; board 1 1; p12 2 1
Cid, Carl 1600 4 1; 300 390; board 2 2; p12 1 1

Dee, Dora 1500 3 2 2; 420 330
"""

EVENT = """
name = "T"
rounds = 3
[[division]]
name = "A"
tfile = "a.t"
players = ["Ann Lee", "Bob Brown", "Carl Cid", "Dora Dee"]
[[pairing]]
round = 3
board = 1
players = ["Ann Lee", "Carl Cid"]
[[pairing]]
round = 3
board = 2
players = ["Dora Dee", "Bob Brown"]
"""


def _event(tmp_path, t_text=T_FILE):
    (tmp_path / "event.toml").write_text(EVENT)
    (tmp_path / "a.t").write_text(t_text)
    return load_event(tmp_path)


def _results():
    return [Result(1, "g1", 3, "A", (("Ann Lee", 433), ("Carl Cid", 402)), "naspa", "out", "", 30, 1),
            Result(2, "g2", 3, "A", (("Bob Brown", 388), ("Dora Dee", 388)), "naspa", "out", "", 30, 1)]


def test_round_merged_into_a_copy_with_opponents_scores_board_and_first(tmp_path):
    cfg = _event(tmp_path)
    text = tsh_text(cfg, "A", _results(), 3)
    lines = [ln for ln in text.splitlines() if ln and not ln.startswith("#")]
    assert lines[0] == "Lee, Ann 1800 2 3 3; 400 380 433; board 1 2 1; p12 1 2 1"
    assert lines[1] == "Brown, Bob 1700 1 4 4; 350 410 388; board 1 1 2; p12 2 1 1"
    assert lines[2] == "Cid, Carl 1600 4 1 1; 300 390 402; board 2 2 1; p12 1 1 2"
    assert lines[3] == "Dee, Dora 1500 3 2 2; 420 330 388"      # pre-paired round 3 (opponent 2) kept
    assert (tmp_path / "a.t").read_text() == T_FILE                # the director's own file untouched
    assert text.startswith("# division A\n") and "\n\n" in text    # comments and blank lines kept


def test_merge_refuses_other_opponents_missing_rounds_and_other_players(tmp_path):
    lines = parse_t(T_FILE, "a.t")
    cfg = _event(tmp_path)
    div = cfg.divisions["A"]
    with pytest.raises(TshError, match=r"a.t:6: Dee, Dora: round 3: the file pairs opponent 2, the desk 1"):
        merge_round(lines, 3, [Game(4, 400, 1, 300, 1)], div, "a.t")
    with pytest.raises(TshError, match="rounds 3-4 are not paired"):
        merge_round(lines, 5, [Game(1, 400, 2, 300, 1)], div, "a.t")
    other = _event(tmp_path, T_FILE.replace("Cid, Carl", "Zed, Zoe"))
    with pytest.raises(TshError, match="player 3 is 'Zed, Zoe' in the file but 'Carl Cid' in event.toml"):
        tsh_text(other, "A", _results(), 3)
    with pytest.raises(TshError, match="not a tsh player line"):
        parse_t("just words\n", "b.t")


def test_a_correction_replaces_the_score_and_a_fresh_file_is_built_without_tfile(tmp_path):
    lines = parse_t(T_FILE, "a.t")
    cfg = _event(tmp_path)
    once = merge_round(lines, 2, [Game(1, 999, 3, 100, 2)], cfg.divisions["A"], "a.t")
    assert render_t(once).splitlines()[1].startswith("Lee, Ann 1800 2 3; 400 999")
    (tmp_path / "event.toml").write_text(EVENT.replace('tfile = "a.t"\n', ""))
    with pytest.raises(TshError, match="^division A: Ann Lee: round 3: the desk has recorded no game or bye of "
                                       "theirs in rounds 1-2 yet$"):   # no word of a file: there is none
        tsh_text(load_event(tmp_path), "A", _results())
    fresh = tsh_text(load_event(tmp_path), "A", [dataclasses.replace(r, round=1) for r in _results()])
    assert fresh.splitlines() == ["Ann Lee 0 3; 433", "Bob Brown 0 4; 388", "Carl Cid 0 1; 402", "Dora Dee 0 2; 388"]


def test_standings_count_ties_half_spread_and_running_games(tmp_path):
    cfg = _event(tmp_path)
    st = standings(cfg, _results(), {"A": 1})["A"]
    assert st["running"] == 1
    top = st["players"][0]
    assert (top["name"], top["wins"], top["spread"]) == ("Ann Lee", 1.0, 31)
    bob = next(p for p in st["players"] if p["name"] == "Bob Brown")
    assert (bob["wins"], bob["losses"], bob["spread"], bob["games"]) == (0.5, 0.5, 0, 1)
    assert st["players"][-1]["name"] == "Carl Cid"


def test_csv_and_zip_exports(tmp_path):
    rs = _results()
    csv_text = results_csv(rs, "http://desk/")
    assert csv_text.splitlines()[1] == "3,A,1,g1,Ann Lee,433,Carl Cid,402,31,,,0,http://desk/games/1/g1.gcg"
    import io
    import zipfile
    with zipfile.ZipFile(io.BytesIO(round_zip(rs))) as z:
        assert z.namelist() == ["round3/board1-g1.gcg", "round3/board2-g2.gcg"]


def test_a_name_with_digits_is_refused_for_tsh(tmp_path):
    (tmp_path / "event.toml").write_text(EVENT.replace('tfile = "a.t"\n', "").replace("Dora Dee", "Dora Dee 2"))
    with pytest.raises(TshError, match="player 4 'Dora Dee 2': a tsh name cannot hold digits"):
        tsh_text(load_event(tmp_path), "A", [])
    with pytest.raises(TshError, match="b.t:1: not a tsh player line"):
        parse_t("Dee 2, Dora 1500 3; 400\n", "b.t")

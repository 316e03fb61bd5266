"""Byes: a player without a game in a round has a bye there - in the .t export as tsh writes one (opponent 0,
the spread as the score) and in the standings; event.toml may record a bye's spread ([[bye]])."""

from __future__ import annotations

import pytest

from kiosk.desk.event import EventFileError, load_event
from kiosk.desk.exports import tsh_text
from kiosk.desk.standings import standings
from kiosk.desk.store import Result
from kiosk.desk.tsh import TshError

EVENT = """
rounds = 3
[[division]]
name = "A"
players = ["Ada", "Bo", "Cy"]
[[pairing]]
round = 1
board = 1
players = ["Ada", "Bo"]
[[pairing]]
round = 2
board = 1
players = ["Bo", "Cy"]
[[pairing]]
round = 3
board = 1
players = ["Ada", "Cy"]
"""


def _event(tmp_path, extra: str = "", tfile: str | None = None):
    text = EVENT + extra
    if tfile is not None:
        (tmp_path / "a.t").write_text(tfile)
        text = text.replace('name = "A"\n', 'name = "A"\ntfile = "a.t"\n')
    (tmp_path / "event.toml").write_text(text)
    return load_event(tmp_path)


def _r(rnd: int, a: tuple[str, int], b: tuple[str, int]) -> Result:
    return Result(1, f"g{rnd}", rnd, "A", (a, b), "nsf", "out_play", "", 30, 1)


def test_a_round_without_a_game_is_a_bye_in_the_t_file_and_the_standings(tmp_path):
    """Without a tfile every /tsh/A.t answered 409 'division A:3: Cy: round 2: rounds 1-1 are not paired in the
    file': Cy had a bye in round 1."""
    cfg = _event(tmp_path)
    results = [_r(1, ("Ada", 400), ("Bo", 300)), _r(2, ("Bo", 410), ("Cy", 380))]
    assert tsh_text(cfg, "A", results).splitlines() == ["Ada 0 2 0; 400 50", "Bo 0 1 3; 300 410",
                                                        "Cy 0 0 2; 50 380"]
    assert tsh_text(cfg, "A", results, 2) == tsh_text(cfg, "A", results)   # a fresh file holds rounds 1-2
    st = {p["name"]: p for p in standings(cfg, results, {})["A"]["players"]}
    assert (st["Cy"]["wins"], st["Cy"]["losses"], st["Cy"]["spread"], st["Cy"]["games"]) == (1, 1, 20, 2)
    assert (st["Ada"]["wins"], st["Ada"]["spread"]) == (2, 150)


def test_a_recorded_bye_counts_its_spread_and_a_game_still_to_come_is_no_bye(tmp_path):
    cfg = _event(tmp_path, '[[bye]]\nround = 1\nplayer = "cy"\nspread = -50\n')
    results = [_r(1, ("Ada", 400), ("Bo", 300))]
    assert tsh_text(cfg, "A", results).splitlines()[2] == "Cy 0 0; -50"
    st = {p["name"]: p for p in standings(cfg, results, {})["A"]["players"]}
    assert (st["Cy"]["wins"], st["Cy"]["losses"], st["Cy"]["spread"]) == (0, 1, -50)
    # round 2 (Bo - Cy) still playing: no round of byes yet, so round 3 cannot go in before it
    with pytest.raises(TshError, match=r"^division A: Ada: round 3: the desk has recorded no game or bye of theirs "
                                       r"in rounds 2-2 yet$"):
        tsh_text(cfg, "A", results + [_r(3, ("Ada", 350), ("Cy", 360))])


def test_a_tfile_keeps_a_round_it_already_has(tmp_path):
    cfg = _event(tmp_path, tfile="Ada 1500 2; 400; board 1; p12 1\nBo 1400 1; 300; board 1; p12 2\n"
                                 "Cy 1300 0; 75; board 0; p12 0\n")
    results = [_r(1, ("Ada", 400), ("Bo", 300)), _r(2, ("Bo", 410), ("Cy", 380))]
    assert tsh_text(cfg, "A", results).splitlines() == [
        "Ada 1500 2 0; 400 50; board 1 0; p12 1 0", "Bo 1400 1 3; 300 410; board 1 1; p12 2 1",
        "Cy 1300 0 2; 75 380; board 0 1; p12 0 2"]


@pytest.mark.parametrize(("extra", "said"), [
    ('[[bye]]\nround = 2\nplayer = "Cy"\n', "bye 1: 'Cy' plays on board 1 in round 2, so has no bye"),
    ('[[bye]]\nround = 4\nplayer = "Cy"\n', "bye 1: round 4 is not a round of the event (1-3)"),
    ('[[bye]]\nround = 1\nplayer = "Zed"\n', 'bye 1: player "Zed" is not a registered player'),
    ('[[bye]]\nround = 1\nplayer = "Cy"\nspread = true\n', "bye 1: spread true must be a whole number of points"),
    ('[[bye]]\nround = 1\nplayr = "Cy"\n', "bye 1: unknown key 'playr' (known: round, player, spread)"),
])
def test_a_bye_event_toml_cannot_use_is_refused_naming_the_entry(tmp_path, extra, said):
    with pytest.raises(EventFileError, match="event.toml: " + said.replace("(", r"\(").replace(")", r"\)")):
        _event(tmp_path, extra)

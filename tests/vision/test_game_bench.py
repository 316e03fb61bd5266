"""The game benchmark's scoring (:mod:`kiosk.vision.train.game_bench`) and ``kiosk bench-vision --games``: the new
tiles of each move counted right, doubtful or silently wrong; known tiles read otherwise and phantoms counted."""

from __future__ import annotations

import json

from kiosk.cli import main
from kiosk.vision.train.game_bench import GameTally, MoveResult
from shared_data import SHARED, needs_shared


def test_a_moves_new_tiles_are_scored_right_doubtful_or_silent():
    t = GameTally()
    t.add(MoveResult({1: ("A", "A"), 2: ("B", "#"), 3: ("C", "G"), 4: ("?", "?")}, 1, 0, 1, True, "f1", 40.0,
                     {2: "letter", 3: "silent"}, ["E->."]))
    t.add(MoveResult({5: ("D", "D")}, 0, 0, 2, True, "f1", 50.0))
    f = t.figures()
    assert (t.letters, t.letters_right, t.blanks, t.blanks_right, t.unsure, t.silent) == (4, 2, 1, 1, 1, 1)
    assert f["letters"] == 50.0 and f["silent_tile_errors"] == 20.0 and f["unsure_share_of_errors"] == 50.0
    assert f["exact_moves"] == 50.0 and t.frames == 3 and t.false_anomalies == 1
    text = "\n".join(t.lines("typical"))
    assert "read wrong without doubt: C->G 1" in text and "read '#': B-># 1" in text and "E->. 1" in text and "letter 1, silent 1" in text


@needs_shared
def test_bench_vision_games_watches_whole_games_and_writes_its_figures(tmp_path, capsys):
    rc = main(["bench-vision", "--games", "1", "--level", "typical", "--workers", "1", "--tile-sets", "english",
               "--seed", "3", "--shared", str(SHARED), "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert rc in (0, 1)
    assert "typical, fonts level, 1 games (seed 3)" in out and "new letters read right" in out
    saved = json.loads((tmp_path / "games-typical.json").read_text())
    assert saved["games"] == 1 and saved["moves"] > 10 and saved["figures"]["letters"] > 95.0
    assert ("bars: new letters >= 99.5%, silent <= 0.1%: met" in out) == (rc == 0)


@needs_shared
def test_bench_vision_games_refuses_the_single_position_modes_beside_it(tmp_path, capsys):
    # (a negative --games is refused with the other counts: tests/cli/test_bench_vision_report.py)
    common = ["bench-vision", "--level", "typical", "--shared", str(SHARED), "--out", str(tmp_path)]
    for option in ("--speed", "--sheet"):
        assert main([*common, "--games", "2", option, "3"]) == 2
        assert "give one of them" in capsys.readouterr().err


@needs_shared
def test_the_corpus_lexicon_holds_the_games_words_and_english_adds_enable(tmp_path, capsys):
    """``--lexicon corpus``: the words the corpus's games spell stand in for the event's lexicon (ENABLE's too for
    the English set); a game read with it is saved beside, not over, the figures read without."""
    from kiosk.vision.train.game_bench import corpus_lexicon

    english, german = corpus_lexicon(str(SHARED), "english"), corpus_lexicon(str(SHARED), "german")
    assert {"QI", "ZA", "CAT"} <= english and len(english) > 170_000     # QI, ZA: played, not in ENABLE
    assert 50 < len(german) < 5_000 and "CAT" not in german and all(w.isupper() for w in german)
    common = ["bench-vision", "--level", "typical", "--shared", str(SHARED), "--out", str(tmp_path)]
    assert main([*common, "--lexicon", "corpus"]) == 2
    assert "--lexicon checks the words of a game's moves: give --games N" in capsys.readouterr().err
    rc = main([*common, "--games", "1", "--workers", "1", "--tile-sets", "english", "--seed", "3",
               "--lexicon", "corpus"])
    assert rc in (0, 1) and "the corpus's words as the lexicon" in capsys.readouterr().out
    saved = json.loads((tmp_path / "games-typical-lexicon.json").read_text())
    assert saved["lexicon"] == "corpus" and saved["moves"] > 10 and not (tmp_path / "games-typical.json").exists()

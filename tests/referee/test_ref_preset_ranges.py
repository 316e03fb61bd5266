"""Custom presets and tile-set files with numbers no game has are refused naming the file and the key: a negative
overtime penalty or bingo bonus (they would pay a player), ``game_s = 1e20``, ``rack_size = 0``, ``blanks = -2``;
and a preset's ``tile_set = "klingon"`` is refused by the preset loader, so by every command (``replay --preset``
took it, ``run`` refused it)."""

from __future__ import annotations

import pytest

from kiosk.cli import main
from kiosk.referee.presets import PresetError, bundled_presets, load_preset
from kiosk.rules.tiles import TileSetError, load_tile_set


def _preset(tmp_path, body: str):
    path = tmp_path / "event.toml"
    path.write_text(f'extends = "nsf"\nname = "event"\n{body}\n')
    return path


@pytest.mark.parametrize("body, says", [
    ("[clock]\novertime_penalty_points = -10", "clock.overtime_penalty_points: -10 is out of range: expected a whole "
                                               "number from 0 to 1000"),
    ("[scoring]\nbingo_bonus = -50", "scoring.bingo_bonus: -50 is out of range"),
    ("[clock]\ngame_s = 1e20", "clock.game_s: 1e+20 s is more than a day (86400 s)"),
    ("[clock]\ngame_s = 0", 'clock.game_s: 0 s gives the players no time: give the seconds of each player\'s clock, '
                           'or "none" for a game without a chess clock'),
    ("[challenge]\nwrong_penalty = 100000", "challenge.wrong_penalty: 100000 is out of range"),
    ("[clock]\nturn_warnings_s = [10, 999999]", "clock.turn_warnings_s: 999999 s is more than a day"),
    ('tile_set = "klingon"', "tile_set: unknown tile set 'klingon' (bundled: english, german)"),
    ("[challenge]\noutplay_window_s = inf", "challenge.outplay_window_s: expected seconds"),
    ("[challenge]\nwindow_s = inf", "challenge.window_s: expected seconds"),
    ("[clock]\ngame_s = inf", "clock.game_s: expected seconds"),
    ("[clock]\nturn_limit_s = -inf", "clock.turn_limit_s: expected seconds"),
    ("[clock]\ngame_s = nan", "clock.game_s: expected seconds"),
    ("[clock]\nturn_warnings_s = [10, nan]", "clock.turn_warnings_s: expected a list of seconds"),
    ("[clock]\nturn_warnings_s = [inf]", "clock.turn_warnings_s: expected a list of seconds"),
    ("[clock]\ngame_s = true", "clock.game_s: expected seconds"),
    ("[scoring]\nbingo_bonus = inf", "scoring.bingo_bonus: expected a whole number"),
    ("[challenge]\nwrong_penalty = nan", "challenge.wrong_penalty: expected a whole number"),
])
def test_nonsense_in_a_preset_is_refused_naming_the_key(tmp_path, capsys, body, says):
    path = _preset(tmp_path, body)
    with pytest.raises(PresetError) as exc:
        load_preset(path)
    assert str(exc.value).startswith(f"{path}: {says}"), str(exc.value)
    game = tmp_path / "g.gcg"
    game.write_text("#player1 A A\n#player2 B B\n>A: AEINRST 8D RETAINS +66 66\n")
    assert main(["replay", "--preset", str(path), str(game)]) == 2
    err = capsys.readouterr().err   # (inf crashed every command with OverflowError, nan with 'cannot convert ...')
    assert says in err and str(path) in err and "Traceback" not in err and "convert" not in err


def _refused_tile_set(tmp_path, body: str):
    """(the tile-set file written from ``body``: its head keys, then ``[tiles]`` if given, else two letters; the
    TileSetError its loading raised)."""
    path = tmp_path / "tiles.toml"
    head, _, tiles = body.partition("[tiles]")
    tiles = tiles or "A = [9, 1]\nB = [9, 3]"
    path.write_text(f'name = "mine"\n{head}\n[tiles]\n{tiles}\n')
    with pytest.raises(TileSetError) as exc:
        load_tile_set(str(path))
    return path, exc


@pytest.mark.parametrize("body, says", [
    ("rack_size = 0", "rack_size: expected a whole number from 1 to 20, got 0"),
    ("blanks = -2", "blanks: expected a whole number from 0 to 20, got -2"),
    ('rack_size = "7"', "rack_size: expected a whole number from 1 to 20, got '7'"),
    ("rack_size = 7\n[tiles]\nA = [3, 1]", "tiles: 5 tiles in all, too few for two racks of 7 (rack_size)"),
])
def test_nonsense_in_a_tile_set_is_refused_naming_the_key(tmp_path, body, says):
    path, exc = _refused_tile_set(tmp_path, body)
    assert str(exc.value) == f"{path}: {says}"


def test_the_bundled_presets_and_tile_sets_still_load():
    for name in bundled_presets():
        load_preset(name)
    assert load_tile_set("english").total_tiles == 100 and load_tile_set("german").total_tiles == 102


@pytest.mark.parametrize("body", ["blanks = inf", "rack_size = nan", "blanks = true", "rack_size = 7\n[tiles]\nA = [inf, 1]",
                                  "rack_size = 7\n[tiles]\nA = [9, nan]", "rack_size = 7\n[tiles]\nA = [true, 1]"])
def test_inf_nan_or_bool_in_a_tile_set_is_refused(tmp_path, body):
    path, exc = _refused_tile_set(tmp_path, body)
    assert str(exc.value).startswith(f"{path}: ")

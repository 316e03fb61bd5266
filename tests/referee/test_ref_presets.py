"""Presets: one file per seed sheet plus naspa/wespa/casual; bad files get errors naming the key."""

from __future__ import annotations

import pytest

from kiosk.referee.presets import PresetError, bundled_presets, load_preset, preset_from_dict


def test_ref_bundled_presets_are_all_there():
    assert set(bundled_presets()) >= {"school", "club-reading", "nsf", "home", "team", "naspa", "wespa", "casual"}
    for name in bundled_presets():
        p = load_preset(name)
        assert p.name == name
        assert preset_from_dict(p.to_dict()) == p
        p.scoring_rules()  # the rules core accepts the scoring part


def test_ref_nsf_preset_follows_seed_002():
    p = load_preset("nsf")
    assert p.clock.game_ms == 25 * 60_000 and p.clock.overtime_penalty_points == 10
    assert p.clock.overtime_unit_ms == 60_000 and p.clock.turn_limit_ms is None
    assert p.challenge.rule == "ten_point" and p.challenge.wrong_bonus == 10 and not p.challenge.wrong_loses_turn
    assert p.challenge.window_ms == 20_000 and p.challenge.courtesy_ms == 60_000
    assert p.challenge.outplay_window_ms == 5_000 and not p.challenge.ruling_names_words
    assert p.challenge.off_centre_challengeable
    assert p.scoring_rules().off_centre_first_play == "no_centre_dws"
    assert p.exchange.min_bag == 7
    assert p.end.scoreless_turns == 6 and p.end.scoreless_needs_nonzero
    assert p.end.out_adjustment == "double" and p.end.no_out_adjustment == "own_rack" and p.end.tie == "half"


def test_ref_sheet_differences_are_in_the_presets():
    school, club, home, team = (load_preset(n) for n in ("school", "club-reading", "home", "team"))
    assert school.challenge.wrong_loses_turn and school.challenge.window_ms is None
    assert school.end.out_adjustment == "standard" and school.exchange.min_bag == 0
    assert club.scoring_rules().game_word == "READING" and club.scoring_rules().game_word_factor == 3
    assert club.clock.turn_limit_ms == 180_000 and club.clock.session_warnings_ms == (360_000, 180_000)
    assert club.end.out_adjustment == "none" and club.end.no_out_adjustment == "none"
    assert home.end.out_adjustment == "own_only" and home.challenge.wrong_loses_turn and home.max_players == 4
    assert team.scoring_rules().ban_plural_s and team.scoring_rules().first_play_min_tiles == 2
    assert team.challenge.phony_penalty > 0 and team.challenge.wrong_penalty > 0
    assert team.end.tie == "pre_adjustment" and team.exchange.counts == "one_or_all" and team.max_players == 4
    assert load_preset("casual").challenge.rule == "void" and load_preset("casual").clock.game_ms is None
    assert load_preset("naspa").challenge.wrong_bonus == 5 and load_preset("naspa").end.out_adjustment == "double"
    assert load_preset("wespa").challenge.wrong_bonus_per_word and load_preset("wespa").end.out_adjustment == "standard"


def test_ref_silent_sheets_say_so_in_a_comment():
    from importlib import resources

    for name in ("school", "club-reading", "home", "team"):
        text = (resources.files("kiosk") / "presets" / f"{name}.toml").read_text(encoding="utf-8")
        assert "standard tournament behaviour" in text, name


def test_ref_event_can_ship_its_own_preset(tmp_path):
    f = tmp_path / "german-club.toml"
    f.write_text('name = "german-club"\nextends = "nsf"\ntile_set = "german"\n'
                 '[challenge]\nrule = "custom"\nwrong_bonus = 0\nwrong_penalty = 10\n', encoding="utf-8")
    p = load_preset(f)
    assert p.name == "german-club" and p.tile_set == "german"
    assert p.challenge.wrong_penalty == 10 and p.challenge.wrong_bonus == 0
    assert p.clock.game_ms == 25 * 60_000  # inherited from nsf


@pytest.mark.parametrize("body, words", [
    ('name = "x"\ncolour = 1\n', "x.toml: colour: unknown key"),
    ('name = "x"\n[clock]\ngame_s = "long"\n', "x.toml: clock.game_s: expected seconds"),
    ('name = "x"\n[clock]\ngame_ms = 5\n', "x.toml: clock.game_ms: unknown key"),
    ('name = "x"\n[challenge]\nrule = "quadruple"\n', "x.toml: challenge.rule: 'quadruple' is not one of"),
    ('name = "x"\n[challenge]\nwrong_bonus = "ten"\n', "x.toml: challenge.wrong_bonus: expected a whole number"),
    ('name = "x"\n[challenge]\nholds = 1\n', "x.toml: challenge.holds: expected true or false"),
    ('name = "x"\n[end]\ntie = "coin"\n', "x.toml: end.tie: 'coin' is not one of"),
    ('name = "x"\n[scoring]\nbingo = 50\n', "x.toml: scoring.bingo: unknown key"),
    ('name = "x"\n[scoring]\nbingo_bonus = true\n', "x.toml: scoring.bingo_bonus: expected a whole number"),
    ('name = "x"\nmax_players = 7\n', "x.toml: max_players: expected a whole number from 2 to 4"),
    ('name = "x"\nmin_players = 4\nmax_players = 3\n', "x.toml: min_players: 4 is more than max_players"),
    ('description = "no name"\n', "x.toml: name: missing key"),
    ('name = "x"\n[clock\n', "x.toml: not valid TOML"),
    ('name = "x"\nextends = "nosuch"\n', "unknown preset 'nosuch'"),
    ('name = "x"\nclock = 3\n', "x.toml: clock: expected a table"),
])
def test_ref_bad_preset_file_names_the_key(tmp_path, body, words):
    f = tmp_path / "x.toml"
    f.write_text(body, encoding="utf-8")
    with pytest.raises(PresetError) as info:
        load_preset(f)
    assert words in str(info.value)


def test_ref_unknown_or_unreadable_preset(tmp_path):
    with pytest.raises(PresetError, match="unknown preset 'worlds'.*bundled: .*nsf"):
        load_preset("worlds")
    with pytest.raises(PresetError, match="missing.toml: no such preset file"):
        load_preset(tmp_path / "missing.toml")
    cyc = tmp_path / "a.toml"
    cyc.write_text(f'name = "a"\nextends = "{cyc}"\n', encoding="utf-8")
    with pytest.raises(PresetError, match="extends itself"):
        load_preset(cyc)


@pytest.mark.parametrize(("change", "message"), [
    (lambda d: d.pop("clock"), "stored preset: bad or missing field: 'clock'"),
    (lambda d: d["clock"].update(bogus=1), "stored preset: bad or missing field: clock.bogus: unknown field"),
    (lambda d: d["challenge"].update(window_ms="x"),
     "stored preset: bad or missing field: challenge.window_ms: expected a whole number or null, got 'x'"),
])
def test_a_bad_stored_preset_names_the_field(change, message):
    data = load_preset("nsf").to_dict()
    change(data)
    with pytest.raises(PresetError) as err:
        preset_from_dict(data)
    assert str(err.value) == message


def test_a_stored_preset_from_before_the_board_field_still_loads():
    data = load_preset("nsf").to_dict()
    del data["board"]
    assert preset_from_dict(data) == load_preset("nsf")

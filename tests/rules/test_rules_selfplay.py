"""Self-play generator: every generated move is legal, every word is in the lexicon; the built-in game replays."""

from importlib import resources

from kiosk.rules.board import Board, parse_coordinate
from kiosk.rules.gcg import parse_gcg, read_gcg
from kiosk.rules.lexicon import default_lexicon
from kiosk.rules.replay import replay_game
from kiosk.tools.selfplay import generate_moves


def test_generated_moves_are_legal_words():
    lex = default_lexicon()
    b = Board()
    b.place(list(zip(parse_coordinate("8D").squares(6), "GRAZED")))
    moves = generate_moves(b, "CELNOOT", lex)
    assert len(moves) > 50
    for ps, tiles in moves:
        assert all(w.word.upper() in lex for w in ps.words), ps.words
        assert len(tiles) <= 7
    best = max(moves, key=lambda m: m[0].total)[0]
    assert best.total >= 18


def test_first_move_covers_centre_and_blank_is_lower_case():
    moves = generate_moves(Board(), "?AEINRT", default_lexicon())
    assert moves and all(any(sq == 112 for sq, _ in tiles) for _, tiles in moves)
    assert any(ps.bingo == 50 for ps, _ in moves)
    assert any(any(t.islower() for _, t in tiles) for _, tiles in moves)


def test_builtin_game_replays_with_no_mismatch():
    path = resources.files("kiosk") / "data" / "games" / "builtin.gcg"
    game = read_gcg(str(path))
    res = replay_game(game)
    assert not res.problems and res.ended == "out" and res.moves >= 20
    assert replay_game(parse_gcg(path.read_text(encoding="utf-8"), "b")).totals == res.totals


def test_three_player_home_game_replays_with_each_own_rack_line():
    """Seed 003 (home), 2-4 players: after an out-play each other player loses his own rack and the player who went
    out adds nothing; a 3-player self-play game under it replays with no problem, each seat moving in turn."""
    from kiosk.referee.presets import load_preset
    from kiosk.rules.gcg import EventKind
    from kiosk.tools.selfplay import self_play

    preset = load_preset("home")
    game = self_play(3, ("Ada", "Bo", "Cy"), preset=preset)
    res = replay_game(game, rules=preset.scoring_rules())
    assert not res.problems, res.problems
    assert [ev.nick for ev in game.events[:6]] == ["Ada", "Bo", "Cy"] * 2
    ends = [ev for ev in game.events if ev.kind == EventKind.END_RACK]
    if res.ended == "out":
        assert len(ends) == 2 and all(ev.score <= 0 for ev in ends)
    else:
        assert len(ends) == 3

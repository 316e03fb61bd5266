"""One or more tests per scoring rule sentence of the seed sheets (file and rule named in each test)."""

import pytest

from kiosk.rules.board import CENTRE, Board, parse_coordinate
from kiosk.rules.placement import Placement, PlacementError
from kiosk.rules.scoring import score_play
from kiosk.rules.tiles import ENGLISH, GERMAN
from kiosk.rules.variants import STANDARD, ScoringRules

READING = ScoringRules(game_word="READING")
TEAM = ScoringRules(ban_plural_s=True, first_play_min_tiles=2)
NSF = ScoringRules(off_centre_first_play="no_centre_dws")


def tiles_for(board: Board, coord: str, word: str):
    """(square, tile) for the letters of ``word`` at ``coord`` that are not on the board ('.' = on the board)."""
    return list(Placement.from_word(board, coord, word).tiles)


def play(board: Board, coord: str, word: str, rules=STANDARD, tile_set=ENGLISH, **kw):
    t = tiles_for(board, coord, word)
    ps = score_play(board, t, tile_set, rules, **kw)
    board.place(t)
    return ps


def test_seed000_rule11_sum_of_letter_values_of_each_word():
    b = Board()
    # first play H8 DWS: C3 A1 T1 = 5 x 2
    assert play(b, "8H", "CAT").total == 10


def test_seed000_rule12_dls_and_tls_double_and_triple_a_letter():
    b = Board()
    assert play(b, "8H", "AT").total == 4
    # I6 plain Z 10, I7 DLS A 2, T on the board 1
    assert play(b, "I6", "ZA.").total == 13
    b = Board()
    assert play(b, "8F", "AAH").total == 12   # (1 + 1 + 4) x 2
    # F6 TLS Z 30, F7 plain A 1, F8 A on the board 1
    assert play(b, "F6", "ZA.").total == 32

def test_seed000_rule13_letter_premiums_before_word_premiums():
    b = Board()
    # 8D: D8 is DLS, H8 centre DWS. Q on D8 (DLS) = 20, U E E N = 4 -> (20+1+1+1+1)*2 = 48
    assert play(b, "8D", "QUEEN").total == 48


def test_seed000_rule14_premiums_only_on_the_turn_they_are_covered():
    b = Board()
    play(b, "8D", "QUEEN")
    ps = play(b, "8D", "QUEENS")         # Q stays on D8 but counts face value now; S on I8 plain
    assert ps.total == 10 + 1 + 1 + 1 + 1 + 1


def test_seed000_rule15_blank_on_word_square_still_multiplies():
    b = Board()
    ps = play(b, "8G", "cAT")             # blank c on G8, A on the centre DWS: (0+1+1)*2
    assert ps.total == 4
    assert ps.words[0].word == "cAT"


def test_seed003_blank_scores_zero_bonus_still_applies_on_tws():
    b = Board()
    play(b, "8H", "AT")
    # ATONEMEs: blank s on O8 (TWS); E on L8 (DLS): 1+1+1+1+2+3+1+0 = 10, x3 = 30
    ps = play(b, "8H", "..ONEMEs")
    assert ps.total == 30 and ps.words[0].word == "ATONEMEs"

def test_seed000_rule16_common_letter_counted_in_each_word_with_premium():
    b = Board()
    assert play(b, "8G", "BE").total == 8     # (3 + 1) x 2
    ps = play(b, "7G", "AX")                  # A on G7 (DLS) also forms AB; X on H7 forms XE
    words = {w.word: w.score for w in ps.words}
    assert words == {"AX": 2 + 8, "AB": 2 + 3, "XE": 8 + 1}
    assert ps.total == 24

def test_seed000_rule17_bingo_adds_50_after_totalling():
    b = Board()
    ps = play(b, "8D", "RETAINS")         # 7 tiles: D8 DLS on R? R is at D8 -> R doubled
    base = (2 * 1 + 1 + 1 + 1 + 1 + 1 + 1) * 2
    assert ps.bingo == 50 and ps.total == base + 50


def test_bingo_only_for_a_full_rack_of_seven():
    b = Board()
    play(b, "8D", "RETAINS")
    ps = play(b, "E5", "BAR.")                # 3 tiles: no bingo
    assert ps.bingo == 0 and ps.played == 3

def test_dws_doubles_a_word_through_an_old_tile():
    b = Board()
    play(b, "8H", "AT")
    # column L? use row 2: B2 and N2 are DWS; a word from B2 to N2 needs 13 letters. Use the diagonal DWS pair
    # E5 and ... instead verify via D4/L4? Row 4 DWS at D4 and L4 (9 letters D..L); play down through H8 is
    # simpler: H column has no DWS besides the centre. Construct a 9-letter word on row 4 crossing nothing:
    b = Board()
    play(b, "8D", "AERATED")              # D8..J8
    ps = play(b, "D4", "BAIT.")           # down D4..D8: D4 DWS, B3 A1 I1 T1 + A (old) = 7 -> x2 = 14
    assert ps.total == 14
    b = Board()
    play(b, "8E", "ABIDE")                # E8..I8
    ps = play(b, "E5", "OVE.")            # E5 DWS: O V E + A(old): O1 V4 E1 A1 = 7 -> x2 = 14
    assert ps.total == 14


def test_seed001_scoring4_two_dws_in_one_word_x4():
    b = Board()
    play(b, "H6", "TEA")                       # H6..H8 through the centre
    # RETAINS on E5..K5 covers the DWS at E5 and K5; its A on H5 also forms ATEA down (plain squares)
    ps = play(b, "5E", "RETAINS")
    main = ps.words[0]
    assert main.word == "RETAINS" and main.score == 7 * 4
    assert [w.score for w in ps.words[1:]] == [4]
    assert ps.total == 28 + 4 + 50


def test_two_tws_in_one_word_x9():
    b = Board()
    b.place([(parse_coordinate("D1").start + 15 * r, "E") for r in range(8)])   # a column D1..D8
    ps = score_play(b, tiles_for(b, "1A", "AAA.AAAA"))                          # A1 and H1 are TWS
    assert ps.words[0].score == 8 * 9 and ps.total == 72 + 50


def test_dws_and_tws_in_one_word_x6_seed002_off_centre_opening():
    b = Board()
    play(b, "8B", "AAAAA", NSF)                # opening off the centre (nsf): B8..F8, D8 DLS doubles one A
    ps = play(b, "8A", "E.....EE", NSF)        # new tiles on A8 (TWS), G8 and H8 (the centre DWS)
    assert ps.total == 8 * 6


def test_seed001_bonus1_seven_tiles_score_50_more():
    b = Board()
    assert play(b, "8B", "READING", READING, game_word_available=False).bingo == 50


def test_seed001_bonus2_game_word_reading_scores_triple_once():
    b = Board()
    plain = score_play(Board(), tiles_for(Board(), "8B", "READING"))
    ps = play(b, "8B", "READING", READING)
    assert ps.uses_game_word
    reading_score = plain.words[0].score
    assert ps.total == plain.total + 2 * reading_score
    # once per game: the referee passes game_word_available=False afterwards
    b2 = Board()
    ps2 = play(b2, "8B", "READING", READING, game_word_available=False)
    assert ps2.total == plain.total and not ps2.uses_game_word


def test_seed004_no_s_added_to_make_a_plural():
    b = Board()
    play(b, "8G", "CAT", TEAM)
    with pytest.raises(PlacementError) as e:
        play(b, "8G", "CATS", TEAM)
    assert e.value.code == "plural_s"
    # an S that is part of a longer extension is fine; so is an S in a new word
    b2 = Board()
    play(b2, "8G", "CAT", TEAM)
    assert play(b2, "8G", "...ERS", TEAM).total > 0


def test_seed004_first_word_covers_h8_with_at_least_two_letters():
    with pytest.raises(PlacementError) as e:
        score_play(Board(), [(CENTRE, "A")], rules=TEAM)
    assert e.value.code == "first_too_short"
    with pytest.raises(PlacementError) as e:
        score_play(Board(), tiles_for(Board(), "1A", "CAT"), rules=TEAM)
    assert e.value.code == "first_not_centre"


def test_seed002_nsf_first_play_missing_centre_scores_without_dws_and_centre_stays_live():
    b = Board()
    ps = play(b, "8A", "CAT", NSF)            # C on A8 (TWS): (3 + 1 + 1) x 3; no centre DWS
    assert ps.total == 15
    assert not b[CENTRE]
    # the centre DWS stays live: CATHODES puts S on H8; A8's TWS is spent
    ps2 = play(b, "8A", "...HODES", NSF)      # C3 A1 T1 H(D8 DLS)8 O1 D2 E1 S1 = 18, x2
    assert ps2.total == 36
    with pytest.raises(PlacementError) as e:
        score_play(Board(), tiles_for(Board(), "8A", "CAT"))  # standard rules refuse it
    assert e.value.code == "first_not_centre"

def test_adding_to_a_word_scores_all_its_tiles_seed003():
    b = Board()
    play(b, "8H", "CAT")                  # 10
    ps = play(b, "8H", "...S")            # K8 plain: C3 A1 T1 S1 = 6
    assert ps.total == 6


def test_german_values():
    b = Board()
    # H4 FIRNS from the 2019 Nürnberg game (scrabscrap game01, GCG line 4), 24 points with German values
    assert play(b, "8D", "FIRNS", tile_set=GERMAN).total == 24


def test_known_real_plays():
    b = Board()
    assert play(b, "8D", "WAITE").total == 24          # success.gcg line 4
    assert play(b, "7C", "DEFO").total == 22           # success.gcg line 5

"""One way to write "N things" (kiosk.rules.counts.counted, re-exported by kiosk.control.words): "1 move",
"2 moves", "0 moves", irregular plurals given; and outputs of the pure core that said "1 tiles" and "1 players"."""

from __future__ import annotations

from collections import Counter

import pytest

from kiosk.control import words
from kiosk.referee.endgame import check_racks
from kiosk.rules.counts import counted
from kiosk.rules.tiles import ENGLISH
from kiosk.tools.selfplay import self_play


@pytest.mark.parametrize(("n", "noun", "plural", "said"), [
    (1, "move", None, "1 move"),
    (2, "move", None, "2 moves"),
    (0, "move", None, "0 moves"),
    (1, "tile", None, "1 tile"),
    (3, "tile", None, "3 tiles"),
    (1, "match", "matches", "1 match"),
    (2, "match", "matches", "2 matches"),
    (0, "match", "matches", "0 matches"),
    (-1, "point", None, "-1 point"),
    (-2, "point", None, "-2 points"),
    (1, "more try", "more tries", "1 more try"),
    (3, "more try", "more tries", "3 more tries"),
])
def test_a_count_and_its_noun(n, noun, plural, said):
    assert counted(n, noun, plural) == said


def test_the_number_may_be_formatted():
    assert counted(1, "point", fmt="+d") == "+1 point" and counted(5, "point", fmt="+d") == "+5 points"
    assert counted(-1, "point", fmt="+d") == "-1 point" and counted(0, "point", fmt="+d") == "+0 points"
    assert counted(1024, "letter", fmt=",") == "1,024 letters"


def test_the_words_shown_to_players_give_the_same_helper():
    assert words.counted is counted


def test_a_rack_of_one_tile_is_one_tile_not_one_tiles():
    why = check_racks(("E", ""), (2, 0), Counter("EEX"), 0, ENGLISH, ("Ann", "Bob"))
    assert why == "Ann's rack has 1 tile but the game tracked 2", why   # was "1 tiles"


def test_selfplay_with_one_name_says_one_player():
    with pytest.raises(ValueError, match=r"^self-play: 1 player; the rules allow 2 to 4$"):   # was "1 players"
        self_play(names=("Ada",))

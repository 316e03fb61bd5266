"""The words a move read on the board spells, against a lexicon (kiosk.vision.move_words): a misread
letter that spells a word the lexicon lacks, where one other letter spells one, is a doubt naming both words; a
phony no single letter mends, words through unsure squares and a move without a lexicon are left as read."""

from __future__ import annotations

from collections import Counter

from kiosk.rules.tiles import load_tile_set
from kiosk.vision.game import GameReader, apply_prior, prior_from_board
from kiosk.vision.move_words import runs_through, spells, word_doubts
from kiosk.vision.reading import BoardReading, DoubtKind

ENGLISH = load_tile_set("english")
LETTERS = sorted(set(ENGLISH.letters))
ALL = Counter(dict.fromkeys(LETTERS, 2))


def grid(*words: tuple[int, int, str], down: tuple[tuple[int, int, str], ...] = ()) -> list[str]:
    """15 rows of '.', with (row, col, text) laid across, and ``down`` ones laid down (1-based row, col)."""
    rows = [list("." * 15) for _ in range(15)]
    for r, c, text in words:
        for i, ch in enumerate(text):
            rows[r - 1][c - 1 + i] = ch
    for r, c, text in down:
        for i, ch in enumerate(text):
            rows[r - 1 + i][c - 1] = ch
    return ["".join(r) for r in rows]


def sq(label: str) -> int:
    return (int(label[1:]) - 1) * 15 + "ABCDEFGHIJKLMNO".index(label[0])


def cells(g: list[str]) -> list[str]:
    return list("".join(g))


def lexicon(*words: str):
    held = set(words)
    return held.__contains__


def test_runs_through_the_new_tiles_across_and_down_never_across_a_row_end():
    g = cells(grid((8, 7, "CAT"), (9, 1, "X"), down=((7, 8, "BAD"),)))   # BAD down column H through the A
    runs = runs_through(g, [sq("H8")])
    assert sorted(runs) == sorted([(sq("G8"), sq("H8"), sq("I8")), (sq("H7"), sq("H8"), sq("H9"))])
    g = cells(grid((7, 15, "A"), (8, 1, "B")))   # O7 and A8 follow each other in the cells, not on the board
    assert runs_through(g, [sq("A8")]) == []
    assert runs_through(cells(grid((8, 8, "Q"))), [sq("H8")]) == []


def test_spells_takes_a_blank_as_any_letter_and_does_not_judge_through_an_unsure_square():
    ok = lexicon("CAT")
    g = cells(grid((8, 7, "C?T")))
    run = [sq("G8"), sq("H8"), sq("I8")]
    assert spells(g, run, ok, LETTERS)
    assert not spells(cells(grid((8, 7, "CRT"))), run, ok, LETTERS)
    assert spells(cells(grid((8, 7, "C#T"))), run, ok, LETTERS)


def test_a_letter_one_other_letter_mends_is_a_doubt_naming_both_words():
    g = cells(grid((8, 7, "CRT")))
    new = {sq("G8"): "C", sq("H8"): "R", sq("I8"): "T"}
    out = word_doubts(g, new, lexicon("CAT", "DOG"), LETTERS, ALL)
    assert out == {sq("H8"): "letter R? the move reads CRT, not in the lexicon; an A here makes CAT"}
    # every letter that mends is a doubt: ART mends it at G8 too, CRY at I8
    out = word_doubts(g, new, lexicon("CAT", "ART", "CRY"), LETTERS, ALL)
    assert set(out) == {sq("G8"), sq("H8"), sq("I8")}
    assert "a Y here makes CRY" in out[sq("I8")]


def test_a_phony_no_single_letter_mends_and_a_good_move_are_left_as_read():
    g = cells(grid((8, 7, "QXZJ")))
    new = {sq(f"{c}8"): ch for c, ch in zip("GHIJ", "QXZJ")}
    assert word_doubts(g, new, lexicon("CAT"), LETTERS, ALL) == {}
    assert word_doubts(cells(grid((8, 7, "CAT"))), {sq("H8"): "A"}, lexicon("CAT"), LETTERS, ALL) == {}


def test_the_mend_must_make_every_word_of_the_move_good_and_be_a_tile_still_unseen():
    # ORX laid under a known CAT: the down words CO, AR and TX are good, ORX is not; the X read for an E mends
    # ORX and keeps TX's column good (TE); a letter mending ORX but breaking its down word would be no mend
    g = cells(grid((8, 7, "CAT"), (9, 7, "ORX")))
    new = {sq("G9"): "O", sq("H9"): "R", sq("I9"): "X"}
    ok = lexicon("CAT", "ORE", "ORB", "CO", "AR", "TE", "TX", "AN")
    out = word_doubts(g, new, ok, LETTERS, ALL)
    assert set(out) == {sq("I9")}                        # X -> E makes ORE and TE
    assert out[sq("I9")] == "letter X? the move reads ORX, not in the lexicon; an E here makes ORE"   # not ORB: TB
    # one E left unseen, and the move lays one already: TEX -> TEE needs two
    g3 = cells(grid((8, 7, "TEX")))
    assert word_doubts(g3, {sq("G8"): "T", sq("H8"): "E", sq("I8"): "X"}, lexicon("TEE"), LETTERS,
                       Counter({**ALL, "E": 1})) == {}
    assert set(word_doubts(g3, {sq("G8"): "T", sq("H8"): "E", sq("I8"): "X"}, lexicon("TEE"), LETTERS, ALL)) == {
        sq("I8")}
    # no E left unseen: nothing mends it
    assert word_doubts(g, new, ok, LETTERS, Counter({**ALL, "E": 0})) == {}
    # a blank read is never the doubted letter (it has no letter read); two bad words no one tile is in: none
    g1 = cells(grid((8, 7, "C?X")))
    out = word_doubts(g1, {sq("G8"): "C", sq("H8"): "?", sq("I8"): "X"}, lexicon("CAT"), LETTERS, ALL)
    assert set(out) == {sq("I8")} and "a T here makes C?T" in out[sq("I8")]
    g2 = cells(grid((8, 7, "CRT"), (10, 7, "DQG")))
    assert word_doubts(g2, {sq("H8"): "R", sq("H10"): "Q"}, lexicon("CAT", "DOG"), LETTERS, ALL) == {}


def test_one_tile_in_two_words_names_both_and_articles_follow_the_letter_s_name():
    # C.T across and B.D down cross at H8: R read there makes CRT and BRD; an A makes CAT and BAD
    g = cells(grid((8, 7, "CRT"), down=((7, 8, "B"), (9, 8, "D"))))
    out = word_doubts(g, {sq("H8"): "R"}, lexicon("CAT", "BAD"), LETTERS, ALL)
    assert out == {sq("H8"): "letter R? the move reads CRT and BRD, not in the lexicon; an A here makes CAT and BAD"}
    g = cells(grid((8, 7, "OQ")))
    out = word_doubts(g, {sq("H8"): "Q"}, lexicon("OF", "OB", "OM", "OE", "OX"), LETTERS, ALL)
    assert out[sq("H8")].endswith("a B here makes OB, an E here makes OE, an F here makes OF (or 2 more letters)")
    german = load_tile_set("german")
    g = cells(grid((8, 7, "BQR")))
    out = word_doubts(g, {sq("H8"): "Q"}, lexicon("BÄR"), sorted(set(german.letters)), Counter({"Ä": 1}))
    assert out[sq("H8")].endswith("an Ä here makes BÄR")


def test_apply_prior_with_a_lexicon_doubts_the_misread_letter_only():
    prior = prior_from_board("".join(grid((8, 7, "CA"))), ENGLISH)
    reading = BoardReading.from_grid(grid((8, 7, "CAR"), (9, 9, "O")))   # CAR and RO: both words, no doubt
    res = apply_prior(reading, prior, word_ok=lexicon("CAT", "CAR", "RO", "TO"))
    assert res.new == {sq("I8"): "R", sq("I9"): "O"} and not res.reading.doubts
    reading = BoardReading.from_grid(grid((8, 7, "CAT"), (9, 9, "Q")))   # TO read TQ
    res = apply_prior(reading, prior, word_ok=lexicon("CAT", "TO"))
    assert res.new == {sq("I8"): "T"}
    assert res.reading.grid()[8][8] == "#"
    assert res.reading.doubts[sq("I9")].kind is DoubtKind.LETTER
    assert "the move reads TQ" in res.reading.doubts[sq("I9")] and "an O here makes TO" in res.reading.doubts[sq("I9")]
    # without a lexicon nothing is checked
    res = apply_prior(reading, prior)
    assert res.new == {sq("I8"): "T", sq("I9"): "Q"}
    # a tile doubted for its word still lies in the move's line: an unsure square off that line is emptied
    rows = grid((8, 7, "CATS"), (9, 10, "Q"))
    rows[7] = rows[7][:12] + "#" + rows[7][13:]                  # a stray unsure square on M8
    res = apply_prior(BoardReading.from_grid(rows), prior_from_board("".join(grid((8, 7, "CAT"))), ENGLISH),
                      word_ok=lexicon("CAT", "CATS", "SO"))
    assert res.new == {sq("J8"): "S"} and res.reading.grid()[8][9] == "#" and res.reading.grid()[7][12] == "."
    assert "makes SO" in res.reading.doubts[sq("J9")]


def test_the_game_reader_passes_its_lexicon_on():
    reading = BoardReading.from_grid(grid((8, 7, "CRT")))
    game = GameReader(lambda frame, corners, known, corners_from: reading, ENGLISH, word_ok=lexicon("CAT"))
    res = game.read_game(None)   # type: ignore[arg-type]
    assert res.reading.grid()[7][7] == "#" and "makes CAT" in res.reading.doubts[sq("H8")]
    assert GameReader(lambda frame, corners, known, corners_from: reading, ENGLISH).read_game(
        None).reading.grid()[7] == "......CRT......"   # type: ignore[arg-type]

"""Words and names the record cannot hold: ``lexicon compile`` took a 10,000,000-letter "word" and the one-letter
words A and I (a Scrabble word has 2 to 15 letters: they are left out, counted, their lines named); ``selfplay
--names <5000 X's>,B`` wrote a GCG its own replay flagged (a line of 5,019 characters; nicknames have at most
100); ``selfplay --names A`` blamed --players; ``lexicon check ÄPFEL --tiles german`` answered from the English
ENABLE without a word of warning."""

from __future__ import annotations

from pathlib import Path

from kiosk.cli import main
from kiosk.lexicons import load_lexicon


def _list(tmp_path: Path, *lines: str) -> Path:
    path = tmp_path / "words.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_compile_leaves_out_one_letter_and_overlong_words_naming_their_lines(tmp_path, capsys) -> None:
    src = _list(tmp_path, "A", "I", "QI", "ZA", "A" * 10_000_000, "JO", "ANTIDISESTABLISHMENT", "QUIZ")
    out = tmp_path / "club.marisa"
    assert main(["lexicon", "compile", str(src), "-o", str(out)]) == 0
    captured = capsys.readouterr()
    assert captured.out == f"WORDS: 4 words -> {out}\n"
    assert (f"{src}: left out 4 lines that are no Scrabble words (a word has 2 to 15 letters): line 1 'A' (1 letter); "
            "line 2 'I' (1 letter); line 5 'AAAAAAAAAAAAAAA...' (10,000,000 letters); line 7 'ANTIDISESTABLISHMENT' "
            "(20 letters)\n") in captured.err
    lex = load_lexicon(out)
    assert len(lex) == 4 and all(w in lex for w in ("JO", "QI", "QUIZ", "ZA"))
    assert "A" not in lex and "QI" in lex and out.stat().st_size < 10_000


def test_a_list_of_only_non_words_is_refused_and_nothing_written(tmp_path, capsys) -> None:
    src = _list(tmp_path, "A", "I")
    out = tmp_path / "x.marisa"
    assert main(["lexicon", "compile", str(src), "-o", str(out)]) == 2
    assert capsys.readouterr().err == (f"kiosk lexicon: {src}: no word of 2 to 15 letters (a Scrabble word fits on "
                                       "the board and has two letters or more): line 1 'A' (1 letter); line 2 'I' "
                                       "(1 letter)\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["words.txt"]


def test_check_with_a_word_list_says_what_it_left_out(tmp_path, capsys) -> None:
    src = _list(tmp_path, "A", "QI")
    assert main(["lexicon", "check", "qi", "a", "--lexicon", str(src)]) == 1
    out, err = capsys.readouterr()
    assert out == "QI: acceptable in WORDS\nA: not in WORDS\n"
    assert err == (f"kiosk lexicon: {src}: left out 1 line that is no Scrabble word (a word has 2 to 15 letters): "
                   "line 1 'A' (1 letter)\n")


def test_check_with_german_tiles_and_no_lexicon_says_it_answers_from_english_enable(capsys) -> None:
    assert main(["lexicon", "check", "ÄPFEL", "--tiles", "german"]) == 1
    out, err = capsys.readouterr()
    assert out == "ÄPFEL: not in ENABLE\n"
    assert err == ("kiosk lexicon: no --lexicon given: these words are looked up in ENABLE, an English word list, not "
                   "a German one; give the event's German word list (or its compiled .marisa) with --lexicon\n")
    assert main(["lexicon", "check", "the"]) == 0
    assert capsys.readouterr().err == ""


def test_selfplay_refuses_a_nickname_longer_than_a_gcg_line_can_hold(tmp_path, capsys) -> None:
    out = tmp_path / "g.gcg"
    assert main(["selfplay", "--names", "X" * 5000 + ",B", "--quiet", "-o", str(out)]) == 2
    assert capsys.readouterr().err == ("kiosk selfplay: --names: the nickname 'XXXXXXXXXXXXXXXXXXXX'... has 5,000 "
                                       "characters; a GCG record's lines hold 512, so a name has at most 100; give "
                                       "nicknames such as Ada,Bo\n")
    assert not out.exists()
    assert main(["selfplay", "--names", "X" * 100 + ",B", "--quiet", "-o", str(out)]) == 0
    capsys.readouterr()
    assert main(["replay", str(out)]) == 0
    replayed = capsys.readouterr()
    assert "GCG readers accept" not in replayed.out + replayed.err and " 0 mismatches" in replayed.out
    assert max(len(line) for line in out.read_text(encoding="utf-8").splitlines()) <= 512


def test_selfplay_names_the_option_that_gave_the_wrong_count(capsys) -> None:
    assert main(["selfplay", "--names", "A"]) == 2
    assert capsys.readouterr().err == "kiosk selfplay: --names: expected 2 to 4 nicknames, comma-separated, got 1\n"
    assert main(["selfplay", "--names", "A,B,C,D,E"]) == 2
    assert capsys.readouterr().err == "kiosk selfplay: --names: expected 2 to 4 nicknames, comma-separated, got 5\n"
    assert main(["selfplay", "--players", "5"]) == 2
    assert capsys.readouterr().err == "kiosk selfplay: --players: expected 2 to 4, got 5\n"

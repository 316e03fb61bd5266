"""GCG reading and writing: real-world variants, clear errors, round trips (read, write, read)."""

import glob
from pathlib import Path

import pytest

from kiosk.rules.gcg import (
    EventKind,
    GameBuilder,
    GcgError,
    GcgVisitor,
    Walk,
    decode_gcg,
    parse_gcg,
    read_gcg,
    write_gcg,
)
from shared_data import SHARED, needs_shared

SAMPLE = """#character-encoding UTF-8
#player1 Ann Ann Example
#player2 Bob Bob Example
#lexicon NWL23
#title Club night, round 3
>Ann: ?AEINRT 8D RETAiNs +68 68
#note a bingo
continued note line
>Bob: DEFGIOU -DFGU +0 0
>Ann: AEIOOUU - +0 68
>Bob: DEGIIOU E5 DI.G +12 12
>Ann: AEIOOUU (challenge) +5 73
>Bob: EIIOUWZ --  -12 0
>Ann: AEIOOUU  (time) -10 63
"""


def test_parse_all_event_kinds():
    g = parse_gcg(SAMPLE, "sample.gcg")
    kinds = [e.kind for e in g.events]
    assert kinds == [EventKind.PLAY, EventKind.EXCHANGE, EventKind.PASS, EventKind.PLAY,
                     EventKind.CHALLENGE_BONUS, EventKind.WITHDRAWN, EventKind.TIME_PENALTY]
    first = g.events[0]
    assert (first.rack, str(first.coordinate), first.word, first.score, first.cumulative) == ("?AEINRT", "8D", "RETAiNs", 68, 68)
    assert first.notes == ["a bingo\ncontinued note line"]
    assert g.events[1].tiles == "DFGU" and g.events[1].count == 4
    assert g.lexicon == "NWL23" and g.title == "Club night, round 3"
    assert [p.nick for p in g.players] == ["Ann", "Bob"]


def test_parenthesised_played_through_letters_and_trailing_crosswords():
    g = parse_gcg("#player1 a a\n#player2 b b\n>a: AEHLMR  4k   (D)ON    +10  10  DO, ON\n", "x")
    ev = g.events[0]
    assert ev.word == "DON" and ev.through == (0,) and ev.trailing == ("DO,", "ON")


def test_word_starting_and_ending_with_played_through_letters_is_a_play():
    g = parse_gcg("#player1 Ann Ann\n#player2 b b\n>Ann: EUX E5 (O)XUE(T) +20 292\n>Ann: (OT) +4 296\n", "x")
    assert [e.kind for e in g.events] == [EventKind.PLAY, EventKind.END_RACK]
    assert g.events[0].word == "OXUET" and g.events[0].through == (0, 4)
    assert write_gcg(g).splitlines()[-2] == ">Ann: EUX E5 (O)XUE(T) +20 292"


def test_exchange_count_only_and_unsigned_score():
    g = parse_gcg("#player1 a a\n#player2 b b\n>a: IIIU -4 +0 0\n>b: EINOOSU -OOU 0 0\n", "x")
    assert g.events[0].count == 4 and g.events[0].tiles == ""
    assert g.events[1].tiles == "OOU" and not g.errors


@pytest.mark.parametrize("line,msg", [
    (">a: KLMO8RTV 4D VOLK +33 33", "malformed rack"),
    (">a: ADEIINR DAIN.IER +86 86", "no coordinate"),
    (">a: ?CDILRS K4 D.CR2IaLS +70 70", "malformed word"),
    (">a: Q M70 Q. +21 21", "invalid coordinate"),
    (">a: DEIIKOR -K.OI +0 0", "malformed exchange"),
    (">a: (#) +2 2", "malformed end-of-game rack"),
    (">a: AEIOU 8D", "no score"),
    (">nobody: A 8H AT +4 4", "does not exist"),
])
def test_malformed_lines_name_line_and_fault(line, msg):
    g = parse_gcg(f"#player1 a a\n#player2 b b\n>a: AT 8H AT +4 4\n{line}\n", "bad.gcg")
    assert g.errors, line
    err = g.errors[0]
    assert err.line == 4 and msg in err.message and str(err).startswith("bad.gcg:4:")
    assert len(g.events) >= 1  # the move before the bad line still counts


def test_encodings(tmp_path):
    latin = "#player1 Jürgen Jürgen\n#player2 b b\n>Jürgen: AT 8H AT +4 4\n".encode("latin-1")
    p = tmp_path / "latin.gcg"
    p.write_bytes(latin)
    g = read_gcg(p)
    assert g.players[0].nick == "Jürgen" and g.encoding == "ISO-8859-1"
    p.write_bytes(b"#character-encoding UTF-8\r\n" + "#player1 Jürgen J\r\n#player2 b b\r\n".encode() + b">J\xfcrgen: AT 8H AT +4 4\r\n")
    with pytest.raises(GcgError, match="invalid UTF-8 byte"):
        read_gcg(p)
    with pytest.raises(GcgError, match="unsupported character encoding"):
        decode_gcg(b"#character-encoding EBCDIC\n", "e.gcg")
    with pytest.raises(GcgError, match="cannot read"):
        read_gcg(tmp_path / "missing.gcg")


def test_cr_only_line_ends():
    g = parse_gcg("#player1 a a\r#player2 b b\r>a: AT 8H AT +4 4\r", "cr")
    assert len(g.events) == 1 and not g.errors


def _same(a, b):
    fields = ("kind", "nick", "rack", "score", "cumulative", "coordinate", "word", "through", "tiles", "count", "notes")
    assert [p.nick for p in a.players] == [p.nick for p in b.players]
    assert [p.name for p in a.players] == [p.name for p in b.players]
    assert len(a.events) == len(b.events)
    for x, y in zip(a.events, b.events):
        assert [getattr(x, f) for f in fields] == [getattr(y, f) for f in fields]
    assert a.racks == b.racks and a.notes == b.notes


def test_round_trip_sample():
    g = parse_gcg(SAMPLE, "s")
    _same(g, parse_gcg(write_gcg(g), "s2"))


@needs_shared
def test_round_trip_every_clean_corpus_file():
    files = sorted(glob.glob(str(SHARED / "corpus/gcg/*/*.gcg")))
    done = 0
    for f in files:
        try:
            g = read_gcg(f)
        except GcgError:
            continue
        if g.errors:
            continue
        again = parse_gcg(write_gcg(g), Path(f).name)
        assert not again.errors, (f, again.errors[:1])
        _same(g, again)
        done += 1
    assert done > 300


class _Kinds(GcgVisitor[list[str]]):
    """A consumer of records: the kinds of the lines up to the first exchange, with the calls it saw."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def begin_game(self, game):
        self.calls.append(f"begin {len(game.players)} players")

    def visit_event(self, event):
        self.calls.append(str(event.kind))
        return Walk.STOP if event.kind is EventKind.EXCHANGE else None

    def end_game(self):
        self.calls.append("end")

    def result(self):
        return self.calls


def test_gcg_visitors_walk_one_parse_in_file_order(tmp_path):
    assert parse_gcg(SAMPLE, "s.gcg", _Kinds()) == ["begin 2 players", "play", "exchange", "end"]
    game = parse_gcg(SAMPLE, "s.gcg")
    assert game.accept(_Kinds()) == parse_gcg(SAMPLE, "s.gcg", _Kinds())
    built = parse_gcg(SAMPLE, "s.gcg", GameBuilder())
    assert write_gcg(built) == write_gcg(game) and built.events[3].word == "DI.G"
    f = tmp_path / "s.gcg"
    f.write_text(SAMPLE, encoding="utf-8")
    assert read_gcg(f, _Kinds()) == ["begin 2 players", "play", "exchange", "end"]
    with pytest.raises(NotImplementedError):
        parse_gcg(SAMPLE, "s.gcg", GcgVisitor())  # the base visitor makes nothing of a record

"""No internal event or phase name reaches a player (issue 18): every refusal code and every way a game ends
has a sentence, and the kiosk shows it instead of the referee's log line."""

from __future__ import annotations

import re

from app_fixtures import make_kiosk

from kiosk.control.words import (
    ENDINGS,
    REASON_SHOWN,
    REFUSALS,
    TURN_KINDS,
    ending_sentence,
    refusal_sentence,
    turn_words,
)
from kiosk.referee import events as ev
from kiosk.referee.kinds import Code, EndReason
from kiosk.referee.phase import Phase
from kiosk.referee.state import Result
from kiosk.rules.placement import CODES

EVENT_TYPES = {cls.__dict__.get("type") for cls in vars(ev).values() if isinstance(cls, type)} - {None}
INTERNAL = {str(c) for c in Code} | {str(p) for p in Phase} | {str(e) for e in EndReason} | EVENT_TYPES


def _leaks(text: str) -> set[str]:
    """Internal names in ``text``: snake_case names, or a name of the referee's quoted as code is."""
    words = set(re.findall(r"[a-z_]+", text)) | set(re.findall(r"'(\w+)'", text))
    return {w for w in words if "_" in w or f"'{w}'" in text and w in INTERNAL}


def test_every_refusal_code_and_ending_has_a_sentence_without_internal_names():
    for code in set(Code) - REASON_SHOWN:
        text = refusal_sentence(Result(False, f"'{code}' refused in 'playing'", code))
        assert code in REFUSALS and text[0].isupper() and text.endswith("."), code
        assert not _leaks(text), (code, text)
    for code in CODES:
        text = refusal_sentence(Result(False, "play: " + code, code, squares=(112,)))
        assert text.endswith("(H8).") and not _leaks(text), (code, text)
    for reason in EndReason:
        assert reason in ENDINGS and not _leaks(ending_sentence(reason)), reason
    assert refusal_sentence(Result(False, "x", "no_such_code")).startswith("That cannot be done now")
    assert refusal_sentence(Result(False, "preset 'nsf' is for 2 players, got 3", Code.BAD_PLAYERS)) == \
        "Preset 'nsf' is for 2 players, got 3."  # the new-game screen says why, in the referee's own words
    from kiosk.referee.state import TurnRecord

    kinds = re.findall(r'"([a-z_]+)"', TurnRecord.__doc__ or "")
    assert len(kinds) >= 12 and set(kinds) <= set(TURN_KINDS)  # every history kind the referee names
    assert all(not _leaks(turn_words(k)) for k in kinds)


def test_a_misread_tile_and_the_rulings_are_said_in_sentences():
    from kiosk.control.words import ruling_sentence

    assert refusal_sentence(Result(False, "play: not a tile letter", "bad_tile", squares=(112,))) == \
        "A tile on the board was not recognised (H8)."   # was "Not a tile letter (H8)."
    assert refusal_sentence(Result(False, "play", "duplicate_square", squares=(112,))) == \
        "Two tiles were read on one square (H8)."
    assert ruling_sentence("acceptable") == "The judge ruled the play acceptable: it stands."
    assert ruling_sentence("unacceptable: QUIRT, QI") == \
        "The judge ruled QUIRT, QI unacceptable: the play comes off the board."
    assert ruling_sentence("unacceptable") == "The judge ruled the play unacceptable: it comes off the board."
    assert ruling_sentence("challenge withdrawn") == "The challenge was withdrawn: the play stands."
    for code in ("pin", "busy", "pressed", "press_unrecorded", "journal_full", "journal_failed"):  # the kiosk's own
        assert refusal_sentence(Result(False, "Its own sentence.", code)) == "Its own sentence."


def test_an_event_out_of_its_phase_is_shown_in_words_not_as_the_referees_log_line(tmp_path):
    kiosk, table, clock, worker = make_kiosk(tmp_path)
    clock.t = 1_000
    res = kiosk.apply(ev.TilesRemoved(t=1_000))
    assert not res.accepted and "tiles_removed" in res.reason  # the log keeps the referee's reason
    assert kiosk.view.message == "That cannot be done at this point of the turn."
    assert not _leaks(kiosk.view.message)


def test_004_the_team_kiosk_names_squares_row_letter_first(tmp_path):
    from kiosk.control.words import sheet_rows, square_label

    kiosk, table, clock, worker = make_kiosk(tmp_path, preset="team")
    rows = sheet_rows(kiosk.preset)
    assert square_label(3, rows) == "A4" and square_label(3) == "D1"  # row A, column 4 (seed 004)
    gap = Result(False, "play: gap", "gap", squares=(3,))
    assert refusal_sentence(gap, rows) == "The word has a gap (A4)."
    assert refusal_sentence(gap) == "The word has a gap (D1)."

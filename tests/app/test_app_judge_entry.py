"""The judge enters moves when the camera gives no reading (issue 22's review of the ninth sitting): his entries
end with the turn they were made for, a wrong entry can be taken back, entries made while the camera is known to
be down count at the next press, and passes and exchanges go on with the camera down."""

from app_fixtures import PIN, make_kiosk, settle

from kiosk.rules.board import parse_coordinate

H7 = parse_coordinate("H7").squares(1)[0]


def _quirt_then_camera_down(tmp_path):  # type: ignore[no-untyped-def]
    """Ann has played QUIRT (8D, 48); the camera then dies. Returns (kiosk, table, clock, worker, press) where
    press(side) presses and lets the worker's 1 s timeout pass on its own timer."""
    kiosk, table, clock, worker = make_kiosk(tmp_path)
    elapsed = [0.0]
    worker.timer = lambda: elapsed[0]
    table.put(dict(zip(parse_coordinate("8D").squares(5), "QUIRT")))
    clock.t = 10_000
    kiosk.press("left")
    settle(kiosk, worker)
    assert kiosk.state.scores == (48, 0)
    table.fail = "camera unplugged"

    def press(side: str) -> list[str]:
        clock.t += 10_000
        kiosk.press(side)
        worker.step()
        out = kiosk.poll()
        elapsed[0] += 2.0
        worker.step()
        return out + kiosk.poll()

    assert kiosk.act("judge_unlock", pin=PIN).accepted
    return kiosk, table, clock, worker, press


def test_entries_left_by_an_exchange_are_not_the_next_players_move(tmp_path):
    """The judge entered Bob's I on H7, then Bob exchanged instead: the exchange ends the turn and its entries.
    Ann's press with nothing new on the table was scored IT for her (H7 then stayed 'confirmed')."""
    kiosk, table, clock, worker, press = _quirt_then_camera_down(tmp_path)
    press("right")
    assert kiosk.act("correct", square=H7, char="I").accepted
    assert kiosk.act("exchange", count=2).accepted
    assert press("right") == [] and kiosk.state.history[-1].kind == "exchange"   # at once: no reading needed
    assert kiosk.view.corrections == {} and not kiosk.view.judge_entered and kiosk.view.problem_text == ""
    assert kiosk.view.message == "Bob exchanged 2 tiles."
    table.fail = ""
    clock.t += 10_000
    kiosk.press("left")
    settle(kiosk, worker)
    assert kiosk.state.history[-1].kind == "pass" and kiosk.state.scores == (48, 0)
    assert H7 not in kiosk.view.confirmed


def test_a_wrong_entry_on_a_tile_is_taken_back_by_entering_the_tiles_own_letter(tmp_path):
    """An entry of Z over the Q on D8 made a board problem at every press; entering Q there again removes it."""
    kiosk, table, clock, worker, press = _quirt_then_camera_down(tmp_path)
    press("right")
    d8 = parse_coordinate("8D").squares(1)[0]
    assert kiosk.act("correct", square=d8, char="Z").accepted and kiosk.act("correct", square=H7, char="I").accepted
    out = press("right")
    assert any(o.startswith("board problem") for o in out) and kiosk.state.scores == (48, 0), out
    assert kiosk.act("correct", square=d8, char="Q").accepted and d8 not in kiosk.view.corrections
    assert "play" in press("right") and kiosk.state.last_play.word == "IT" and kiosk.state.scores == (48, 2)


def test_entries_made_while_the_camera_is_known_down_count_at_the_first_press(tmp_path):
    """After one move entered with the camera down, the judge enters Ann's next move before she presses: her
    press takes it at once (one wait for the camera, not two)."""
    kiosk, table, clock, worker, press = _quirt_then_camera_down(tmp_path)
    press("right")
    assert kiosk.act("correct", square=H7, char="I").accepted
    assert "play" in press("right") and kiosk.state.scores == (48, 2)
    plays = [e for e in kiosk.session.referee.events if e.type == "play"]
    assert [e.by_judge for e in plays] == [False, True]     # the journal keeps who saw the tiles
    assert kiosk.act("correct", square=parse_coordinate("H9").squares(1)[0], char="S").accepted  # ITS down
    out = press("left")
    assert "play" in out and kiosk.state.last_play.word == "ITS" and kiosk.state.scores == (51, 2), out


def test_a_pass_with_the_camera_down_is_the_judges_entry_of_nothing_new(tmp_path):
    """No tile to enter for a pass: the judge enters an empty square as empty, and the press is a pass."""
    kiosk, table, clock, worker, press = _quirt_then_camera_down(tmp_path)
    press("right")
    assert kiosk.act("correct", square=0, char=".").accepted
    assert "pass" in press("right") and kiosk.state.history[-1].kind == "pass" and kiosk.state.on_move == 0
    assert kiosk.view.corrections == {}


def test_a_move_the_judge_entered_says_so_in_the_games_record(tmp_path):
    """The journal's play event, the history and the GCG written from them keep that the judge entered the
    tiles; a camera-read play has no such note."""
    from kiosk.referee.gcg_export import export_gcg

    kiosk, table, clock, worker, press = _quirt_then_camera_down(tmp_path)
    press("right")
    assert kiosk.act("correct", square=H7, char="I").accepted
    assert "play" in press("right")
    assert [h.note for h in kiosk.state.history] == ["", "tiles entered or corrected by the judge"]
    gcg = export_gcg(kiosk.state).splitlines()
    at = next(i for i, line in enumerate(gcg) if line.startswith(">Bob:"))
    assert gcg[at + 1] == "#note Bob's tiles entered or corrected by the judge", gcg
    assert sum(line.startswith("#note") and "by the judge" in line for line in gcg) == 1


def test_an_entered_blank_ends_its_entry_when_its_letter_is_named(tmp_path):
    """The judge entered Bob's blank; once its letter is named the move is complete and the entry ends: a
    correction of Ann's doubtful square on the next turn completes her reading and is never her whole move (a
    press with no reading then scored her turn a pass)."""
    kiosk, table, clock, worker, press = _quirt_then_camera_down(tmp_path)
    press("right")
    assert kiosk.act("correct", square=H7, char="?").accepted
    press("right")
    assert kiosk.act("designate", player=1, square=H7, letter="I").accepted and kiosk.state.last_play.word == "iT"
    assert not kiosk.view.judge_entered and kiosk.view.corrections == {}
    table.fail = ""
    h9, h10 = (parse_coordinate(c).squares(1)[0] for c in ("H9", "H10"))
    table.put({H7: "?", h9: "S", h10: "#"})                     # Ann's S, and a doubt beside it
    clock.t += 10_000
    kiosk.press("left")
    settle(kiosk, worker)
    assert kiosk.view.problem_squares == (h10,)
    assert kiosk.act("correct", square=h10, char=".").accepted and not kiosk.view.judge_entered
    table.fail = "camera unplugged"
    out = press("left")
    assert any(o.startswith("no reading") for o in out) and kiosk.state.history[-1].kind == "play", out


def test_an_exchange_chosen_ends_with_its_turn(tmp_path):
    """Bob chooses an exchange while his press is being read: refused (his turn ended at the press; was: accepted,
    "put them in the bag, draw", and his turn recorded as a pass). The reading makes his turn a pass; Ann's play
    next is her play, not Bob's exchange."""
    kiosk, table, clock, worker = make_kiosk(tmp_path)
    clock.t = 10_000
    kiosk.press("left")
    settle(kiosk, worker)                                       # Ann passes
    clock.t = 20_000
    kiosk.press("right")
    assert kiosk.pending is not None and not kiosk.act("exchange", count=2).accepted
    assert kiosk.view.message == ("Bob has pressed the clock: the move is the board as Bob left it. An exchange is "
                                  "chosen on the screen before pressing the clock.")
    settle(kiosk, worker)
    assert kiosk.state.history[-1].kind == "pass" and kiosk.view.exchange == 0
    table.put(dict(zip(parse_coordinate("8D").squares(5), "QUIRT")))
    clock.t = 30_000
    kiosk.press("left")
    settle(kiosk, worker)
    assert kiosk.state.history[-1].kind == "play" and kiosk.state.last_play.word == "QUIRT"


def test_empty_on_a_square_the_judge_entered_takes_his_entry_back(tmp_path):
    """'.' where he entered a tile takes the entry back (the camera reads the square again); it no longer made
    the square 'empty' over a camera that came back and saw Bob's I there."""
    kiosk, table, clock, worker, press = _quirt_then_camera_down(tmp_path)
    press("right")
    assert kiosk.act("correct", square=H7, char="I").accepted and kiosk.act("correct", square=H7, char=".").accepted
    assert kiosk.view.corrections == {}
    table.fail = ""
    table.put({H7: "I"})
    clock.t += 10_000
    kiosk.press("right")
    settle(kiosk, worker)
    assert kiosk.state.last_play.word == "IT" and kiosk.state.scores == (48, 2)


def test_a_play_whose_square_the_judge_corrected_is_recorded_as_his(tmp_path):
    """by_judge marks a play whose tiles the judge's corrections decided (a doubt he settled), not only a whole
    move he entered; a play the camera read alone is written as before (no by_judge key)."""
    kiosk, table, clock, worker = make_kiosk(tmp_path)
    table.put({**dict(zip(parse_coordinate("8D").squares(5), "QUIRT")), 111: "#"})   # G8 doubtful
    clock.t = 10_000
    kiosk.press("left")
    settle(kiosk, worker)
    assert kiosk.act("judge_unlock", pin=PIN).accepted and kiosk.act("correct", square=111, char="R").accepted
    clock.t = 20_000
    kiosk.press("left")
    settle(kiosk, worker)
    table.put({H7: "I"})
    clock.t = 30_000
    kiosk.press("right")
    settle(kiosk, worker)
    plays = [e for e in kiosk.session.referee.events if e.type == "play"]
    assert [e.by_judge for e in plays] == [True, False]
    assert "by_judge" not in plays[1].to_dict() and plays[0].to_dict()["by_judge"] is True


def test_the_exchange_sentence_reads_the_players_own_line():
    """After an exchange the screen names it from the exchanging player's own history line (in a 3-player game
    another player's lost turn may follow it: the screen said "Bob: a pass"), with the tile count's number."""
    from types import SimpleNamespace

    from kiosk.app.table_rulings import exchange_sentence
    from kiosk.referee.state import TurnRecord

    st = SimpleNamespace(players=("Ann", "Bob", "Cy"),
                         history=(TurnRecord("play", 0, 48, 48), TurnRecord("exchange", 1, 0, 0, count=2),
                                  TurnRecord("lost_turn", 2, 0, 0, note="a failed challenge")))
    assert exchange_sentence(st, 1, 1, 2) == "Bob exchanged 2 tiles."
    assert exchange_sentence(st, 1, 1, 1) == "Bob exchanged 1 tile."
    st.history = (*st.history[:1], TurnRecord("pass", 1, 0, 0))
    assert exchange_sentence(st, 1, 1, 3) == "Bob's exchange counts as a pass."


def test_the_scoresheet_line_of_a_play_the_judge_decided_says_so():
    from kiosk.referee.state import ENTERED_BY_JUDGE, PlayRecord, TurnRecord
    from kiosk.stream.snapshot import turn_text

    play = PlayRecord(player=1, tiles=((97, "I"),), coordinate="H7", word="IT", words=("IT",), score=2,
                      rack_before=7, to_draw=1)
    assert turn_text(("Ann", "Bob"), TurnRecord("play", 1, 2, 2, play)) == "Bob: H7 IT +2"
    assert turn_text(("Ann", "Bob"), TurnRecord("play", 1, 2, 2, play, note=ENTERED_BY_JUDGE)) == \
        "Bob: H7 IT +2 (tiles entered or corrected by the judge)"


def test_a_camera_back_that_sees_otherwise_than_the_judge_entered_is_shown_to_him_first(tmp_path):
    """The judge entered I on H7 while the camera was down; the camera comes back and is sure of an A there.
    His entry is not taken over it silently: the square is marked with both letters for him; pressed again, his
    entry stands (recorded as his). Where the camera agrees, the move is taken at once."""
    kiosk, table, clock, worker, press = _quirt_then_camera_down(tmp_path)
    press("right")
    assert kiosk.act("correct", square=H7, char="I").accepted and kiosk.view.judge_entered
    table.fail = ""
    table.put({H7: "A"})
    clock.t += 10_000
    kiosk.press("right")
    out = settle(kiosk, worker)
    assert any(o.startswith("board problem") for o in out) and kiosk.view.problem_squares == (H7,), out
    (clash,) = kiosk.view.problem
    assert (clash.kind, clash.before, clash.after) == ("entry", "I", "A") and kiosk.view.needs_judge
    assert "the judge entered I, the camera reads A" in clash.detail and kiosk.state.scores == (48, 0)
    clock.t += 10_000
    kiosk.press("right")                                    # the judge looked: his I stands
    settle(kiosk, worker)
    assert kiosk.state.last_play.word == "IT" and [e.by_judge for e in kiosk.session.referee.events
                                                   if e.type == "play"] == [False, True]


def test_a_camera_back_that_agrees_with_the_judges_entry_takes_the_move_at_once(tmp_path):
    kiosk, table, clock, worker, press = _quirt_then_camera_down(tmp_path)
    press("right")
    assert kiosk.act("correct", square=H7, char="I").accepted
    table.fail = ""
    table.put({H7: "I"})
    clock.t += 10_000
    kiosk.press("right")
    settle(kiosk, worker)
    assert kiosk.state.last_play.word == "IT" and kiosk.view.problem_text == ""


def test_entries_made_while_withdrawn_tiles_leave_end_with_that_check(tmp_path):
    """Every way a turn's corrections end ends the judge's entry with them: his '.' on the withdrawn phony's
    square (camera down) and his confirmation that the tiles are off left the entry standing, so a correction
    of the next player's doubtful square, made while the camera read, became that player's whole move (a
    pass) when the camera then failed."""
    kiosk, table, clock, worker, press = _quirt_then_camera_down(tmp_path)
    press("right")
    assert kiosk.act("correct", square=H7, char="Z").accepted
    assert "play" in press("right") and kiosk.state.last_play.word == "ZT"
    assert kiosk.act("challenge", player=0).accepted
    assert kiosk.act("rule", acceptable=False, pin=PIN).accepted and kiosk.state.phase == "removing"
    assert kiosk.act("correct", square=H7, char=".").accepted
    assert kiosk.act("confirm_removed").accepted and kiosk.state.on_move == 0
    assert kiosk.view.corrections == {} and not kiosk.view.judge_entered
    table.fail = ""
    h9, h10 = (parse_coordinate(c).squares(1)[0] for c in ("H9", "H10"))
    table.put({H7: ".", h9: "S", h10: "#"})                     # Ann's S below the T, and a doubt beside it
    clock.t += 10_000
    kiosk.press("left")
    settle(kiosk, worker)
    assert kiosk.act("correct", square=h10, char=".").accepted
    table.fail = "camera unplugged"
    out = press("left")
    assert any(o.startswith("no reading") for o in out) and kiosk.state.history[-1].kind != "pass", out

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
    assert kiosk.view.message == "Bob exchanged 2 tiles"
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
    assert [h.note for h in kiosk.state.history] == ["", "tiles entered by the judge (the camera gave no reading)"]
    gcg = export_gcg(kiosk.state).splitlines()
    at = next(i for i, line in enumerate(gcg) if line.startswith(">Bob:"))
    assert gcg[at + 1] == "#note Bob's tiles entered by the judge (the camera gave no reading)", gcg
    assert sum(line.startswith("#note") and "entered by the judge" in line for line in gcg) == 1

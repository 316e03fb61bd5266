"""A new game starts clean at the kiosk: a press of the last game still being read is not taken as a move of
the new one, the judge's settled squares no longer override the camera, the last game's message and problem
are gone; the devices' notes (the table's, not a game's) stay."""

from __future__ import annotations

from app_fixtures import make_kiosk, settle

from kiosk.referee import events as ev


def test_a_new_game_keeps_nothing_of_the_last_but_the_devices_notes(tmp_path):
    kiosk, table, clock, worker = make_kiosk(tmp_path)
    kiosk.view.devices = ("The camera is slow.",)
    kiosk.view.confirmed = {112: "Q"}       # the judge settled H8 in the last game
    worker.set_overrides({112: "Q"})
    clock.t = 5_000
    assert kiosk.press("left") == "reading" and kiosk.pending is not None
    assert kiosk.apply(ev.GameCalled(t=6_000, reason="the director stops it", as_it_stands=True))
    kiosk.view.message = "The judge gave Bob one more minute."
    clock.t = 7_000
    refused = kiosk.start_game({}, ("Cy",))   # refused: leaves the finished game's screen as it was
    assert not refused.accepted and kiosk.view.devices == ("The camera is slow.",)
    assert kiosk.start_game(kiosk.preset.to_dict(), ("Cy", "Di"))
    assert kiosk.pending is None and kiosk.view.message == "" and kiosk.view.confirmed == {}
    assert worker._overrides == {} and kiosk.view.devices == ("The camera is slow.",)
    settle(kiosk, worker)   # the last game's reading comes in: not a move of Cy's
    assert [e.type for e in kiosk.session.referee.events] == ["game_started"]

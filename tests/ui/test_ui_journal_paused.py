"""The sentence of a journal that cannot be written ("The journal cannot be written: ... Call the tournament
director.") fits the main screen on every size: it was cut to one line (the message row held one)."""

from __future__ import annotations

import pygame
import pytest
from test_ui_screens import SIZES
from ui_fixtures import ARTIFACTS, display, make_kiosk  # noqa: F401 - display: the autouse pygame fixture

from kiosk.store.journal import write_failure
from kiosk.ui.app import KioskUI


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_journal_pause_is_said_whole_on_the_main_screen(tmp_path, size):
    k, c = make_kiosk(tmp_path)
    journal = k.session.journal

    def locked(*a, **kw):
        raise write_failure(journal.path, "another program holds the journal file locked")

    journal.append = locked
    c.t = 5_000
    said = k.press("left")
    assert said.startswith("The journal cannot be written: another program") and k.view.message == said
    ui = KioskUI(k, size)
    assert ui.draw() == "main"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    pygame.image.save(ui.surface, str(ARTIFACTS / f"45-journal-paused-{size[0]}x{size[1]}.png"))
    assert not [o for o in ui.overflows if "journal" in o.text], ui.overflows

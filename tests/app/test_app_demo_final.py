"""The windowed demo keeps its final table on screen (issue 18: it closed the moment the game ended): the
window is drawn until it is closed or the judge starts a new game."""

from __future__ import annotations

from types import SimpleNamespace

from kiosk.app.record_demo import _hold_final
from kiosk.referee.state import OVER, PLAYING


def _demo(frames: list[str], stop_after: int, new_game_after: int | None = None) -> SimpleNamespace:
    kiosk = SimpleNamespace(state=SimpleNamespace(phase=OVER), poll=lambda: [])

    def frame(k: SimpleNamespace) -> bool:
        frames.append(k.state.phase)
        if new_game_after is not None and len(frames) == new_game_after:
            k.state.phase = PLAYING  # the judge tapped New game, Start
        return len(frames) < stop_after

    return SimpleNamespace(opts_ui=frame, kiosk=kiosk)


def test_the_final_table_stays_until_the_window_is_closed():
    frames: list[str] = []
    _hold_final(_demo(frames, stop_after=25))  # type: ignore[arg-type]
    assert frames == [OVER] * 25


def test_the_final_table_stays_until_the_judge_starts_a_new_game():
    frames: list[str] = []
    _hold_final(_demo(frames, stop_after=1000, new_game_after=7))  # type: ignore[arg-type]
    assert len(frames) == 7


def test_headless_demo_does_not_wait():
    _hold_final(SimpleNamespace(opts_ui=None, kiosk=None))  # type: ignore[arg-type]

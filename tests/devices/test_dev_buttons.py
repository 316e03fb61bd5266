"""Simulated button sources: scripted and keyboard (pygame events under the dummy video driver)."""

from __future__ import annotations

import os

import pytest

from kiosk.devices.buttons import ButtonPress, ButtonSource, KeyboardButtons, ScriptedButtons


def test_scripted_presses_come_when_due_once() -> None:
    b = ScriptedButtons([(500, "right"), (100, "left"), (900, "pause")], start_ms=10_000)
    assert isinstance(b, ButtonSource)
    assert b.poll(now_ms=10_050) == []
    assert b.poll(now_ms=10_600) == [ButtonPress("left", 10_100), ButtonPress("right", 10_500)]
    assert b.poll(now_ms=10_700) == []
    b.press("judge", 10_800)
    assert b.poll(now_ms=11_000) == [ButtonPress("judge", 10_800), ButtonPress("pause", 10_900)]
    assert b.pending() == 0


@pytest.mark.parametrize("script,match", [([(10, "middle")], r"script\[0\].*unknown button side"),
                                          ([(-1, "left")], ">= 0"), ([("soon", "left")], r"\[at_ms, side\]"),
                                          ([5], r"script\[0\]")])
def test_bad_script_is_named(script: list, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        ScriptedButtons(script)


def test_keyboard_keys_and_auto_repeat() -> None:
    k = KeyboardButtons({"z": "left", "m": "right"})
    assert k.key_down("Z", 5) and not k.key_down("z", 6)  # auto-repeat while held
    assert not k.key_down("q", 7)
    k.key_up("z")
    assert k.key_down("z", 9) and k.key_down("m", 10)
    assert k.poll() == [ButtonPress("left", 5), ButtonPress("left", 9), ButtonPress("right", 10)]
    with pytest.raises(ValueError, match="keys"):
        KeyboardButtons({"x": "nobody"})


def test_keyboard_takes_pygame_events(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    import pygame

    k = KeyboardButtons()
    down = pygame.event.Event(pygame.KEYDOWN, key=pygame.K_SPACE)
    up = pygame.event.Event(pygame.KEYUP, key=pygame.K_SPACE)
    assert k.handle_event(down) and not k.handle_event(down)
    k.handle_event(up)
    assert k.handle_event(down)
    assert [p.side for p in k.poll()] == ["pause", "pause"]


def test_press_queue_is_bounded_and_counts_what_it_refuses() -> None:
    from kiosk.devices.presses import ButtonPress, PressQueue

    q = PressQueue(maxlen=3)
    assert [q.put(ButtonPress("left", t)) for t in range(5)] == [True, True, True, False, False]
    assert q.full() and len(q) == 3 and q.refused == 2
    assert [p.timestamp_ms for p in q.drain()] == [0, 1, 2] and not q.full()

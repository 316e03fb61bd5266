"""Button debounce (firmware and GPIO share it)."""

from __future__ import annotations

import pytest

from firmware_bridge.firmware.debounce import Debouncer


def run(deb: Debouncer, events: list[tuple[int, bool]], until: int, step: int = 1) -> list[int]:
    """Sample a level timeline every ``step`` ms (as the firmware loop does); returns press times."""
    presses, level, i = [], False, 0
    for t in range(0, until, step):
        while i < len(events) and events[i][0] <= t:
            level = events[i][1]
            i += 1
        r = deb.update(level, t)
        if r is not None:
            presses.append(r)
    return presses


def test_clean_press_is_stamped_at_its_first_edge() -> None:
    assert run(Debouncer(20), [(100, True), (200, False)], 400) == [100]


def test_chatter_at_press_and_release_gives_one_press_at_first_edge() -> None:
    chatter = [(100, True), (101, False), (103, True), (104, False), (106, True),
               (300, False), (302, True), (303, False), (305, True), (306, False)]
    assert run(Debouncer(20), chatter, 600) == [100]


def test_held_button_is_one_press() -> None:
    assert run(Debouncer(20), [(50, True)], 5000) == [50]


def test_glitch_shorter_than_debounce_is_no_press() -> None:
    deb = Debouncer(20)
    assert run(deb, [(100, True), (110, False)], 400) == []
    assert deb.rejected == 1


def test_two_real_presses() -> None:
    assert run(Debouncer(20), [(100, True), (180, False), (400, True), (450, False)], 700) == [100, 400]


def test_edge_driven_caller_that_only_sees_edges_still_gets_the_press() -> None:
    deb = Debouncer(20)
    assert deb.update(True, 1000) is None
    assert deb.update(False, 1060) == 1000  # the press held 60 ms; nobody sampled it in between
    assert deb.update(False, 1100) is None
    assert deb.update(True, 1200) is None
    assert deb.update(True, 1230) == 1200


@pytest.mark.parametrize("debounce", [0, 5, 50])
def test_configurable_debounce(debounce: int) -> None:
    presses = run(Debouncer(debounce), [(100, True), (100 + debounce + 30, False)], 400)
    assert presses == [100]


def test_negative_debounce_rejected() -> None:
    with pytest.raises(ValueError):
        Debouncer(-1)

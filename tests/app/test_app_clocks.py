"""The clocks of ``kiosk run``: its devices stamp presses and frames on the monotonic clock (ms since boot), its
events carry wall-clock ms (about 1.8e12); a Pi without a real-time clock boots with a stale wall clock that NTP
sets later. Elapsed game time is monotonic time (:class:`kiosk.app.event_clock.EventClock`); every test here has
the two clocks far apart, as a real table has them (the demo and the unit tests stamp everything on one)."""

from __future__ import annotations

import time
from pathlib import Path

from common_fixtures import headless_config

from kiosk.app.config import load_config
from kiosk.app.event_clock import EventClock
from kiosk.store import GameSession

WALL = 1_800_000_000_000   # a wall-clock time (ms since the epoch); the monotonic clocks below start near 0


class Mono:
    def __init__(self, t: int = 5_000) -> None:
        self.t = t

    def __call__(self) -> int:
        return self.t


def _config(tmp: Path) -> Path:
    return headless_config(tmp)


def test_event_time_counts_by_the_monotonic_clock_from_one_wall_reading():
    mono, wall = Mono(), [WALL]
    clock = EventClock(lambda: wall[0], mono)
    mono.t += 1_500
    assert clock() == WALL + 1_500
    assert clock.from_mono(5_900) == WALL + 900          # a press stamped 600 ms ago on the monotonic clock
    assert clock.from_mono(9_999) == clock()             # a stamp from the future is now
    wall[0] = 5_000                                      # the wall clock set back (years): not followed
    mono.t += 1_000
    assert clock.step() is None and clock() == WALL + 2_500
    clock.not_before(WALL + 10_000)                      # the journal's last event is later: count on from it
    assert clock() == WALL + 10_000
    clock.not_before(WALL)                               # never back
    assert clock() == WALL + 10_000


def test_a_wall_clock_set_forward_is_one_step_of_the_event_times():
    mono, wall = Mono(), [5_000]                         # booted in 1970: no RTC, NTP not yet synced
    clock = EventClock(lambda: wall[0] + mono.t - 5_000, mono)
    mono.t += 1_000
    wall[0] = WALL                                       # NTP
    assert clock.step() == (6_000, WALL + 1_000)
    assert clock() == WALL + 1_000 and clock.step() is None
    wall[0] += 1_500                                     # under STEP_MS: slewed, not a step
    assert clock.step() is None


def test_a_stale_boot_clock_set_by_ntp_is_charged_to_nobody(tmp_path, monkeypatch):
    """The Pi restarts mid-game an hour later, its wall clock in 1970 until NTP sets it. It was: the clocks
    stood still until NTP (every event time clamped to the journal's last one), then the hour the kiosk was off
    and the second it ran were charged to Ann, on move: her 25 minutes gone, overtime. Now her clock runs by the
    monotonic clock from the restart, and NTP's step is a ``kiosk_resumed`` charged to nobody."""
    import kiosk.app.table as table

    cfg = load_config(_config(tmp_path))
    assert table.run_table(cfg, headless=True, max_seconds=1.0) == 0   # the game starts, Ann on move
    first = GameSession.open(tmp_path / "journal.sqlite")
    t_end = max(first.state.last_t, first.journal.last_heartbeat(first.game) or 0)
    before = first.referee.clock_remaining(0, t_end)
    first.close()
    assert before is not None and before > 0

    boot = time.monotonic()

    def wall_after_reboot() -> int:
        up_ms = int((time.monotonic() - boot) * 1000)
        if up_ms < 1_000:
            return 1_000 + up_ms                              # stale: 1970
        return int(time.time() * 1000) + 3_600_000           # NTP: the real time, an hour after the crash

    monkeypatch.setattr(table, "wall_ms", wall_after_reboot)
    t0 = time.monotonic()
    assert table.run_table(cfg, headless=True, max_seconds=2.5) == 0
    ran_ms = int((time.monotonic() - t0) * 1000)
    again = GameSession.open(tmp_path / "journal.sqlite")
    try:
        events = again.referee.events
        end = max(again.state.last_t, again.journal.last_heartbeat(again.game) or 0)
        after = again.referee.clock_remaining(0, end)
        assert after is not None and before - ran_ms - 2_000 <= after <= before, (before, after, ran_ms)
        assert not [e for e in events if e.type in ("turn_time_expired", "overtime_started")]
        steps = [e for e in events if e.type == "kiosk_resumed" and e.t - e.down_since > 3_000_000]
        assert len(steps) == 1, [(e.type, e.t) for e in events]
    finally:
        again.close()


def test_the_streamed_clocks_run_on_the_kiosks_event_time(tmp_path, monkeypatch):
    """The stream hub showed the clocks at the wall clock's time while the kiosk's events carry its event time:
    on a Pi booted with a stale wall clock (1970 until NTP) every streamed tick showed the clocks stood still at
    the last event, for the broadcast and the desk alike."""
    import kiosk.app.table as table
    import kiosk.stream.hub as hub_module

    path = _config(tmp_path)
    path.write_text(path.read_text() + "[stream]\nboard = 3\n")
    cfg = load_config(path)
    assert table.run_table(cfg, headless=True, max_seconds=1.0) == 0   # the game starts, Ann on move
    ticks: list[dict] = []

    class Collect:
        channels = frozenset({"judge"})

        def on_message(self, msg, state) -> None:
            if msg["kind"] == "tick":
                ticks.append(msg)

    class Hub(hub_module.StreamHub):
        def __init__(self, *args, **kw) -> None:
            super().__init__(*args, **kw)
            self.add_sink(Collect())

    monkeypatch.setattr(hub_module, "StreamHub", Hub)
    boot = time.monotonic()
    monkeypatch.setattr(time, "time", lambda: 1.0 + time.monotonic() - boot)  # every wall clock: 1970, no NTP
    assert table.run_table(cfg, headless=True, max_seconds=3.0) == 0
    left = [m["clock"]["remaining_ms"][0] for m in ticks]
    assert len(left) >= 2 and left[-1] < left[0] - 500, left   # Ann's clock runs on the stream


def test_a_step_of_the_wall_clock_charges_nobody_and_keeps_the_judge_menu_open(tmp_path):
    from common_fixtures import PIN, ManualClock, make_kiosk

    from kiosk.app.table import wall_clock_set
    from kiosk.control import commands as cmd

    kiosk, clock = make_kiosk(tmp_path, clock=ManualClock(WALL))
    clock.advance(10_000)
    assert kiosk.handle(cmd.JudgeUnlock(pin=PIN))
    ann = kiosk.remaining_ms(0)
    clock.t += 3_600_000                                  # NTP: an hour forward
    wall_clock_set(kiosk, WALL + 10_000, clock.t)
    assert kiosk.state.last_t == clock.t and kiosk.session.referee.events[-1].type == "kiosk_resumed"
    assert kiosk.remaining_ms(0) == ann                   # charged to nobody
    clock.advance(60_000)
    assert kiosk.remaining_ms(0) == ann - 60_000
    assert kiosk.handle(cmd.Undo(reason="")).code != "pin"   # the menu's two minutes still run
    kiosk.session.close()

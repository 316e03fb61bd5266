"""The clock microcontroller's ms (a u32 since its power-up) mapped onto the host's monotonic ms
(:class:`firmware_bridge.host.OffsetEstimator`): two clocks far apart, and the MCU's wraps every 49.7 days."""

from __future__ import annotations

from firmware_bridge.host import OffsetEstimator

HOST = 900_000_000        # host monotonic ms (10 days since the Pi booted)


def test_a_press_maps_by_the_least_delayed_heartbeat_and_never_into_the_future():
    est = OffsetEstimator()
    est.add(HOST, 1_000)              # arrived 0 ms late
    est.add(HOST + 1_030, 2_000)      # arrived 30 ms late
    assert est.to_host(2_500, HOST + 1_600) == HOST + 1_500
    assert est.to_host(9_000, HOST + 1_600) == HOST + 1_600   # a stamp ahead of the host's now is now


def test_a_press_after_the_mcus_count_wrapped_maps_next_to_the_heartbeats_before_it():
    """After 49.7 days the MCU's u32 ms wraps to 0. Its press was mapped by ``host - mcu`` offsets of
    heartbeats from before the wrap, 2**32 ms (49.7 days) back: the kiosk clamped the press to its last event,
    and the player on move was charged nothing for his turn."""
    est = OffsetEstimator()
    top = 0xFFFF_FFFF
    est.add(HOST, top - 1_999)        # heartbeats just before the wrap
    est.add(HOST + 1_000, top - 999)
    press = 500                       # 1,500 ms after the last heartbeat, past the wrap
    assert est.to_host(press, HOST + 2_600) == HOST + 2_500
    est.add(HOST + 2_000, 0x0000_0000)   # a heartbeat after the wrap; the old ones still in the window
    assert est.to_host(700, HOST + 2_800) == HOST + 2_700

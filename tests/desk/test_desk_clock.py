"""The desk's own waits are timed on the monotonic clock; the wall clock (set by NTP, possibly by years at a
Pi's boot) stamps only what the page shows as times."""

from __future__ import annotations

import threading
import time
from types import SimpleNamespace

import kiosk.desk.ingest as ingest
from kiosk.desk.ingest import BrokerConfig, DeskIngest


class _Tables:
    def __init__(self) -> None:
        self.arrived: list[int] = []

    def take_all(self, items, arrived, flush=False):
        self.arrived.extend(arrived)

    def flush(self) -> None:
        pass


def test_a_wall_clock_set_forward_does_not_make_the_inbox_wait_years(monkeypatch):
    """The worst inbox wait was desk wall now - wall arrival: NTP setting the clock forward by 1.8e12 ms while
    a message waited made it 57 years, kept for ever as the maximum in the desk's status."""
    wall = [1_000_000.0]                                   # seconds: 1970, before NTP
    monkeypatch.setattr(ingest.time, "time", lambda: wall[0])
    tables = _Tables()
    desk = DeskIngest(tables, threading.Lock(), BrokerConfig("localhost"))  # type: ignore[arg-type]
    desk.client = SimpleNamespace(ack=lambda mid, qos: None)
    desk._on_message(None, None, SimpleNamespace(topic="x/y", payload=b"{}", mid=1, qos=1))
    wall[0] += 1_800_000_000                               # NTP: 1.8e12 ms forward
    time.sleep(0.05)
    desk._batch()
    assert 40 <= desk.stats["wait_max_ms"] < 60_000, desk.stats
    assert tables.arrived == [1_000_000_000]               # the page's arrival time stays desk wall time

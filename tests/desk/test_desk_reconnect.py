"""The desk page in headless Chromium when its stream is lost and its reconnection refused: it says it is
disconnected, its clocks stand still, and it reconnects by itself (back-off) once the desk has room."""

from __future__ import annotations

import shutil
import socket
import sys
import time
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from desk_helpers import ROOT, event_folder, game, messages  # noqa: E402
from test_desk_web import _chrome  # noqa: E402

from kiosk.desk.ingest import BrokerConfig  # noqa: E402
from kiosk.desk.server import MAX_STREAMS_PER_ADDRESS  # noqa: E402
from kiosk.desk.service import Desk  # noqa: E402
from kiosk.referee.referee import Referee  # noqa: E402
from kiosk.stream.broker import LocalBroker, mosquitto_path  # noqa: E402
from kiosk.stream.envelope import encode, envelope  # noqa: E402


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _hold_streams(port: int, n: int) -> list[socket.socket]:
    """``n`` open ``GET /stream`` connections from 127.0.0.1 (the page's own address), each seen answered 200."""
    held = []
    for _ in range(n):
        s = socket.create_connection(("127.0.0.1", port), timeout=10)
        s.sendall(b"GET /stream HTTP/1.1\r\nHost: x\r\n\r\n")
        assert s.recv(64).startswith(b"HTTP/1.1 200"), "a held stream was not served"
        held.append(s)
    return held


def test_desk_page_reconnects_by_itself_after_a_refused_reconnection_and_its_clocks_stand_meanwhile(tmp_path):
    if mosquitto_path() is None:
        pytest.fail("mosquitto is not installed: install the Debian packages in scripts/system-packages.txt")
    broker = LocalBroker().start()
    folder = event_folder(tmp_path)
    port = _free_port()
    config = BrokerConfig("127.0.0.1", broker.port, root=ROOT, client_id="reconnect-desk")
    pub = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="reconnect-kiosks")
    pub.connect("127.0.0.1", broker.port)
    pub.loop_start()
    events = game(1)

    def moves(upto: int) -> int:
        return len(Referee.from_events(events[:upto]).state.history)

    def send(upto: int, remaining: list[int]) -> None:
        for topic, payload in messages(events, 1)[:upto]:
            pub.publish(topic, payload, qos=1).wait_for_publish(5)
        tick = envelope("tick", "judge", game_id="g1", board=1, boot="boot1", n=900 + upto, seq=upto,
                        ts=int(time.time() * 1000), clock={"running": upto % 2, "remaining_ms": remaining})
        pub.publish(f"{ROOT}/judge/board/1/tick", encode(tick), qos=1).wait_for_publish(5)

    desk_a: Desk | None = Desk(folder, config, http_port=port).start()
    desk_b: Desk | None = None
    held: list[socket.socket] = []
    driver, profile = _chrome()
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.support.ui import WebDriverWait

    def text(css: str) -> str:
        return driver.execute_script("const e = document.querySelector(arguments[0]); return e ? e.textContent : ''", css)

    def clocks() -> list[str]:
        return [text(f'.tile[data-board="1"] .c[data-player="{i}"]') for i in (0, 1)]

    online = {"offline": False, "latency": 0, "download_throughput": -1, "upload_throughput": -1}
    try:
        send(10, [1_200_000, 1_100_000])                     # move 10 made; player 0's clock runs
        driver.get(desk_a.url)
        wait = WebDriverWait(driver, 20, ignored_exceptions=(StaleElementReferenceException,))
        wait.until(lambda d: text("#conn") == "live" and f"move {moves(10)}" in text('.tile[data-board="1"] .head span'))
        driver.set_network_conditions(**{**online, "offline": True})
        desk_a.stop()                                        # the desk dies
        desk_a = None
        wait.until(lambda d: text("#conn") != "live")
        # it comes back while its tables moved on, and 8 pages from the page's own address hold its streams
        desk_b = Desk(folder, config, http_port=port).start()
        send(12, [1_150_000, 1_050_000])
        held = _hold_streams(port, MAX_STREAMS_PER_ADDRESS)
        driver.set_network_conditions(**online)
        end = time.monotonic() + 30
        while desk_b.server.crowded_streams == 0 and time.monotonic() < end:
            time.sleep(0.05)
        assert desk_b.server.crowded_streams >= 1, "the page never tried to reconnect"
        before = clocks()
        time.sleep(2.5)
        assert clocks() == before, f"the clocks ran while the page was disconnected: {before} -> {clocks()}"
        assert "disconnected" in text("#conn") and f"move {moves(10)}" in text('.tile[data-board="1"] .head span')
        for s in held:
            s.close()
        held = []
        WebDriverWait(driver, 45, ignored_exceptions=(StaleElementReferenceException,)).until(
            lambda d: text("#conn") == "live" and f"move {moves(12)}" in text('.tile[data-board="1"] .head span'))
        assert not driver.execute_script("return document.body.classList.contains('stale')")
    finally:
        for s in held:
            s.close()
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)
        pub.loop_stop()
        pub.disconnect()
        for d in (desk_a, desk_b):
            if d is not None:
                d.stop()
        broker.close()

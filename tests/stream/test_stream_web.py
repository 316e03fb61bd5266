"""The live view: HTTP routes, the SSE stream, overlay fields, and the page in a real headless Chromium.

The Chromium test needs chromium, chromium-driver (scripts/system-packages.txt) and selenium (pip extra
'dev'); it fails with that message when they are missing. Its screenshot is kept as
artifacts/stream/live_board.png.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from common_fixtures import http_get

from kiosk.referee.events import Challenge, ChallengeRuled, GameStarted, Pass, Play, TilesRemoved
from kiosk.referee.presets import load_preset
from kiosk.referee.referee import Referee
from kiosk.stream.hub import StreamHub
from kiosk.stream.overlay import OverlayWriter
from kiosk.stream.server import LiveServer

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts" / "stream"
H8 = 7 * 15 + 7


def _script() -> list:
    """A scripted opening (legal referee events): Ann plays 8G QI over the centre, Bob plays H8 INK through the I."""
    p = load_preset("nsf").to_dict()
    return [
        GameStarted(t=1_000, preset=p, players=("Ann Lee", "Bob"), game_id="web-1"),
        Play(t=20_000, player=0, tiles=((H8 - 1, "Q"), (H8, "I"))),          # 8G QI
        Play(t=45_000, player=1, tiles=((H8 + 15, "N"), (H8 + 30, "K"))),    # H8 I(N)K down: INK
    ]


@pytest.fixture
def live(tmp_path):
    kiosk_now = {"t": 50_000}  # the kiosk clock the events' t come from (ms)
    hub = StreamHub(12, tick_ms=200, now_ms=lambda: kiosk_now["t"])
    overlay = OverlayWriter(tmp_path / "overlay", board=12)
    server = LiveServer(overlay, port=0, judge_token="desk-secret")
    hub.add_sink(overlay)
    hub.add_sink(server)
    server.start()
    hub.start()
    yield hub, server, overlay, tmp_path / "overlay"
    hub.stop()
    server.stop()



def _publish_and_wait(hub: StreamHub, events, seq: int) -> None:
    for ev in events:
        hub.publish(ev)
    end = time.monotonic() + 5
    while (hub.latest("public") or {}).get("seq") != seq and time.monotonic() < end:
        time.sleep(0.01)
    assert (hub.latest("public") or {}).get("seq") == seq


def test_routes_overlay_fields_and_files(live):
    hub, server, overlay, folder = live
    assert http_get(server.url + "state.json", timeout=5)[0] == 204
    ev = _script()
    ref = Referee.from_events(ev)
    _publish_and_wait(hub, ev, 3)
    status, body = http_get(server.url + "state.json", timeout=5)
    msg = json.loads(body)
    assert status == 200 and msg["seq"] == 3 and msg["state"]["scores"] == list(ref.state.scores)
    assert msg["state"]["board"][7][6:8] == "QI" and msg["state"]["board"][9][7] == "K"
    s0, s1 = ref.state.scores
    expect = {"score.txt": f"{s0} - {s1}", "player1_name.txt": "Ann Lee", "player2_score.txt": str(s1),
              "table.txt": "Table 12", "last_play.txt": ref.state.history[-1] and msg["state"]["last_move"],
              "unseen_count.txt": str(100 - 4), "on_move.txt": "Ann Lee"}
    for name, text in expect.items():
        assert http_get(server.url + f"overlay/{name}", timeout=5) == (200, text), name
        assert (folder / name).read_text() == text, name
    assert msg["state"]["last_move"].startswith("Bob: H8 INK")
    unseen = http_get(server.url + "overlay/unseen.txt", timeout=5)[1]
    assert unseen.count("Q") == 0 and "K" not in unseen.split() and unseen.endswith("??")
    gcg = (folder / "game.gcg").read_text()
    assert ">Ann_Lee: 8G QI" in gcg and ">Bob: H8 INK" in gcg
    clock = http_get(server.url + "overlay/player1_clock.txt", timeout=5)[1]
    assert clock.startswith("2") and ":" in clock  # 25-minute clock, Ann used under a minute
    fields = json.loads(http_get(server.url + "overlay/", timeout=5)[1])["fields"]
    assert "score.txt" in fields and "game.gcg" in fields
    assert http_get(server.url + "overlay/passwords.txt", timeout=5)[0] == 404
    assert http_get(server.url + "static/..%2Fserver.py", timeout=5)[0] == 404
    assert http_get(server.url + "judge/stream", timeout=5)[0] == 403
    assert http_get(server.url + "judge/stream?token=wrong", timeout=5)[0] == 403
    with urllib.request.urlopen(server.url + "judge/stream?token=desk-secret", timeout=5) as r:
        assert r.status == 200 and r.headers["Content-Type"].startswith("text/event-stream")
        head = b""
        while b"data: " not in head or not head.endswith(b"\n\n"):
            head += r.readline()
        judge_first = json.loads(head.split(b"data: ", 1)[1])
        assert judge_first["channel"] == "judge" and judge_first["seq"] == 3
    layout = json.loads(http_get(server.url + "layout.json", timeout=5)[1])
    assert layout["layout"][H8] == "D" and layout["values"]["Q"] == 10
    page = http_get(server.url, timeout=5)[1]
    assert "http://" not in page and "https://" not in page  # no CDN, no external fetch
    for name in ("app.js", "reconnect.js"):   # reconnect.js: shared with the desk (web_files.SHARED)
        js = http_get(server.url + "static/" + name, timeout=5)[1]
        assert "http://" not in js and "https://" not in js


def test_sse_sends_the_latest_snapshot_then_the_stream(live):
    hub, server, overlay, folder = live
    ev = _script()
    _publish_and_wait(hub, ev[:2], 2)
    with urllib.request.urlopen(server.url + "stream", timeout=5) as r:
        assert r.headers["Content-Type"].startswith("text/event-stream")

        def frame() -> dict:
            lines = []
            while True:
                line = r.readline().decode()
                if line == "\n" and lines:
                    break
                if line.strip():
                    lines.append(line.strip())
            if lines[0].startswith("retry"):
                return frame()
            kind = lines[0].split(": ", 1)[1]
            data = json.loads(next(x for x in lines if x.startswith("data: "))[6:])
            assert data["kind"] == kind
            return data

        first = frame()
        assert first["kind"] == "snapshot" and first["seq"] == 2
        hub.publish(ev[2])
        seen = [frame() for _ in range(4)]
        kinds = [(m["kind"], m["seq"]) for m in seen if m["kind"] != "tick"]
        assert ("event", 3) in kinds


def _chrome():
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        pytest.fail("selenium is not installed (pip extra 'dev' in pyproject.toml)")
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver_path = shutil.which("chromedriver") or "/usr/bin/chromedriver"
    if chromium is None or not Path(driver_path).exists():
        pytest.fail("chromium / chromium-driver are not installed: install scripts/system-packages.txt")

    opts = webdriver.ChromeOptions()
    opts.binary_location = chromium
    profile = tempfile.mkdtemp(prefix="kiosk-chromium-")
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
              "--disable-background-networking", "--disable-component-update", "--disable-sync",
              "--disable-dev-shm-usage", "--window-size=1280,720", f"--user-data-dir={profile}"):
        opts.add_argument(a)
    return webdriver.Chrome(service=Service(driver_path), options=opts), profile


def test_page_in_headless_chromium_shows_the_board_after_a_scripted_move(live):
    hub, server, overlay, folder = live
    driver, profile = _chrome()
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    try:
        ev = _script()
        _publish_and_wait(hub, ev[:2], 2)
        driver.get(server.url)
        wait = WebDriverWait(driver, 15)
        wait.until(lambda d: d.find_element(By.ID, "live").get_attribute("data-seq") == "2")

        def cell(sq: int) -> str:
            return driver.find_element(By.CSS_SELECTOR, f'.cell[data-sq="{sq}"]').get_attribute("data-tile") or ""

        assert (cell(H8 - 1), cell(H8), cell(H8 + 15)) == ("Q", "I", "")
        ref = Referee.from_events(ev[:2])
        assert driver.find_element(By.ID, "score-0").text == str(ref.state.scores[0])
        # the scripted move arrives over the open stream: the page updates without a reload
        hub.publish(ev[2])
        wait.until(lambda d: d.find_element(By.ID, "live").get_attribute("data-seq") == "3")
        ref = Referee.from_events(ev)
        tiles = {sq: cell(sq) for sq in range(225) if cell(sq)}
        assert tiles == {H8 - 1: "Q", H8: "I", H8 + 15: "N", H8 + 30: "K"}
        assert driver.find_element(By.ID, "score-1").text == str(ref.state.scores[1])
        assert driver.find_element(By.ID, "last-move").text.startswith("Bob: H8 INK")
        assert "on-move" in driver.find_element(By.ID, "player-0").get_attribute("class")
        assert driver.find_element(By.ID, "unseen-count").text == "96"
        clock = driver.find_element(By.ID, "clock-0").text
        assert clock.startswith("2") and ":" in clock
        # a phony comes off: the board shows it gone
        more = [Play(t=60_000, player=0, tiles=((H8 + 16, "X"),)), Challenge(t=62_000, player=1),
                ChallengeRuled(t=64_000, acceptable=False, judge="j"), TilesRemoved(t=66_000)]
        for e in more:
            assert ref.apply(e).accepted, e
        for e in more:
            hub.publish(e)
        wait.until(lambda d: d.find_element(By.ID, "live").get_attribute("data-seq") == "7")
        assert cell(H8 + 16) == ""
        emptied = driver.find_element(By.CSS_SELECTOR, f'.cell[data-sq="{H8 + 16}"]')
        assert emptied.get_attribute("class").split() == ["cell", "DLS"] and emptied.text == "DLS"
        hub.publish(Pass(t=70_000, player=1))
        wait.until(lambda d: d.find_element(By.ID, "live").get_attribute("data-seq") == "8")
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        shot = ARTIFACTS / "live_board.png"
        assert driver.save_screenshot(str(shot)) and shot.stat().st_size > 10_000
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def _hold_streams(port: int, n: int, first_host: int = 1) -> list:
    """``n`` open ``GET /stream`` connections from 127.0.6.x (the addresses of a crowd of viewers), each seen
    answered 200; close them to release the server's slots."""
    import socket

    held = []
    for i in range(n):
        s = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(f"127.0.6.{first_host + i}", 0))
        s.sendall(b"GET /stream HTTP/1.1\r\nHost: x\r\n\r\n")
        assert s.recv(64).startswith(b"HTTP/1.1 200"), "a held stream was not served"
        held.append(s)
    return held


def test_page_reconnects_by_itself_after_a_refused_reconnection_and_its_clock_stands_meanwhile(tmp_path):
    """The kiosk restarts, and the page's reconnection is refused (503: the live page is full): Chromium's
    EventSource gives up for good on an HTTP error. The page says it is disconnected, its clocks stand still (a
    clock counting down would look live), and it reconnects by itself once the page has room, taking the fresh
    state (another move, other clocks). The browser is held offline while the restarted kiosk fills up, so its
    reconnection meets the full page whatever the machine's speed."""
    ev = _script()
    hub_a = StreamHub(12, tick_ms=200, now_ms=lambda: 50_000)   # the clocks stand still at the kiosk: ticks repeat
    server_a = LiveServer(None, port=0)
    hub_a.add_sink(server_a)
    server_a.start()
    hub_a.start()
    port = server_a.port
    hub_b = server_b = None
    held: list = []
    driver, profile = _chrome()
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    def live(attr: str) -> str:
        return driver.find_element(By.ID, "live").get_attribute(attr) or ""

    def clocks() -> list[str]:
        return [driver.find_element(By.ID, f"clock-{i}").text for i in (0, 1)]

    online = {"offline": False, "latency": 0, "download_throughput": -1, "upload_throughput": -1}
    try:
        _publish_and_wait(hub_a, ev[:2], 2)                  # Bob to move: his clock runs
        driver.get(server_a.url)
        wait = WebDriverWait(driver, 20)
        wait.until(lambda d: live("data-seq") == "2" and live("data-connected") == "true")
        driver.set_network_conditions(**{**online, "offline": True})
        hub_a.stop()
        server_a.stop()                                      # the kiosk dies
        wait.until(lambda d: live("data-connected") == "false")
        # ... and comes back with the game moved on, while a crowd holds every slot of its live page
        hub_b = StreamHub(12, tick_ms=200, now_ms=lambda: 90_000)
        server_b = LiveServer(None, port=port, max_connections=4)
        hub_b.add_sink(server_b)
        server_b.start()
        hub_b.start()
        _publish_and_wait(hub_b, ev, 3)
        held = _hold_streams(port, 4)
        driver.set_network_conditions(**online)
        end = time.monotonic() + 30
        while server_b.refused_connections == 0 and time.monotonic() < end:
            time.sleep(0.05)
        assert server_b.refused_connections >= 1, "the page never tried to reconnect"
        # refused: the page says so, and its clocks stand still
        before = clocks()
        time.sleep(2.5)
        assert live("data-connected") == "false"
        assert clocks() == before, f"the clocks ran while the page was disconnected: {before} -> {clocks()}"
        banner = driver.find_element(By.ID, "conn")
        assert banner.is_displayed() and "Disconnected from the kiosk" in banner.text, banner.text
        assert "stale" in driver.find_element(By.ID, "clock-1").get_attribute("class").split()
        for s in held:                                       # the crowd leaves
            s.close()
        held = []
        WebDriverWait(driver, 45).until(lambda d: live("data-connected") == "true" and live("data-seq") == "3")
        assert driver.find_element(By.ID, "last-move").text.startswith("Bob: H8 INK")
        assert not driver.find_element(By.ID, "conn").is_displayed()
        assert "stale" not in driver.find_element(By.ID, "clock-1").get_attribute("class").split()
    finally:
        for s in held:
            s.close()
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)
        for x in (hub_a, server_a, hub_b, server_b):
            if x is not None:
                x.stop()

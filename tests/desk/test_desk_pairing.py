"""The director pairs a board at the desk (behind the PIN): the game there gets its round and division, the
recorded result moves with it, the pairing survives a desk restart; kiosks can ask for their board's pairing."""

from __future__ import annotations

import json
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from common_fixtures import http_get

sys.path.insert(0, str(Path(__file__).parent))
from desk_helpers import ROOT, event_folder, game, messages  # noqa: E402

from kiosk.desk.ingest import BrokerConfig  # noqa: E402
from kiosk.desk.service import Desk  # noqa: E402
from kiosk.stream.broker import LocalBroker, mosquitto_path  # noqa: E402


def _post(url: str, data: object) -> tuple[int, str]:
    req = urllib.request.Request(url, json.dumps(data).encode(), {"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()



def test_director_pairs_a_board_behind_the_pin(tmp_path):
    if mosquitto_path() is None:
        pytest.fail("mosquitto is not installed: install the Debian packages in scripts/system-packages.txt")
    folder = event_folder(tmp_path)
    import paho.mqtt.client as mqtt

    with LocalBroker() as broker:
        desk = Desk(folder, BrokerConfig("127.0.0.1", broker.port, root=ROOT, client_id="pair-desk"), http_port=0).start()
        try:
            assert json.loads(http_get(desk.url + "pairing/1.json")[1]) == {"board": 1, "round": 1, "division": "A",
                                                                         "players": ["Ann", "Bob"]}
            assert http_get(desk.url + "pairing/3.json")[0] == 404
            c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="pair-kiosk")
            c.connect("127.0.0.1", broker.port)
            c.loop_start()
            evs = game(seed=21, players=("Bob", "Cid"))          # board 3 was never paired in the file
            for t, p in messages(evs, 3, game_id="b3"):
                c.publish(t, p, qos=1).wait_for_publish(5)
            c.loop_stop()
            c.disconnect()
            end = time.monotonic() + 20
            while not desk.store.results() and time.monotonic() < end:
                time.sleep(0.05)
            (res,) = desk.store.results()
            assert res.round is None and desk.tables.tile(3)["flags"]["unpaired"]

            pair = {"pin": "2468", "round": 2, "board": 3, "players": ["Cid", "Bob"]}
            assert _post(desk.url + "pairing", {**pair, "pin": "1111"}) == (403, "Wrong director PIN.")
            code, text = _post(desk.url + "pairing", {**pair, "players": ["Cid", "Zed"]})
            assert code == 400 and text == "round 2 board 3: 'Zed' is not a registered player"
            code, text = _post(desk.url + "pairing", pair)
            assert code == 200 and json.loads(text)["players"] == ["Cid", "Bob"]
            (res,) = desk.store.results()
            assert (res.round, res.division) == (2, "A") and not desk.tables.tile(3)["flags"]["unpaired"]
            state = json.loads(http_get(desk.url + "state.json")[1])
            bob = next(p for p in state["standings"]["A"]["players"] if p["name"] == "Bob")
            assert bob["games"] == 1
        finally:
            desk.stop()
        again = Desk(folder, BrokerConfig("127.0.0.1", broker.port, root=ROOT, client_id="pair-desk"), http_port=0)
        try:
            assert again.config.pairings[(2, 3)].players == ("Cid", "Bob")
            assert again.pairing_problems == []
        finally:
            again.store.close()


def test_pairing_needs_a_director_pin_in_the_event(tmp_path):
    text = (event_folder(tmp_path) / "event.toml").read_text().replace('director_pin = "2468"\n', "")
    folder = event_folder(tmp_path, text)
    desk = Desk(folder, BrokerConfig("127.0.0.1", 1, root=ROOT), http_port=0)
    desk.server.start()
    try:
        code, text = _post(desk.url + "pairing", {"pin": "", "round": 1, "board": 1, "players": ["Ann", "Bob"]})
        assert code == 404 and "director_pin" in text
    finally:
        desk.server.stop()
        desk.store.close()

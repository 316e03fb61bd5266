"""The director takes a game's other version over HTTP (POST /take-version, behind the director PIN): the result,
GCG, standings and every export become the other version's, the live page's stream sees it, the replaced version
stays in the store; anyone else's request, or one that cannot be done as asked, is refused with a sentence and
changes nothing. The versions themselves: tests/desk/test_desk_other_version.py."""

from __future__ import annotations

import csv
import io
import json
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.request
import zipfile
from pathlib import Path

from common_fixtures import http_get, wait_for

sys.path.insert(0, str(Path(__file__).parent))
from desk_helpers import EVENT_TOML, ROOT, event_folder, game, messages, two_versions  # noqa: E402
from hostile_http import post  # noqa: E402

from kiosk.desk.ingest import BrokerConfig  # noqa: E402
from kiosk.desk.message import parse  # noqa: E402
from kiosk.desk.service import Desk  # noqa: E402
from kiosk.desk.versions import clock_text  # noqa: E402
from shared_data import SHARED, needs_shared  # noqa: E402

GID = "r1_b1"
TAKE = {"pin": "2468", "board": 1, "game_id": GID, "version": "1.80"}
DOUG = SHARED / "corpus" / "gcg" / "real" / "domino14_macondo__gcgio_testdata__doug_v_emely.gcg"




def _get_json(url: str) -> object:
    code, text = http_get(url)
    assert code == 200, (url, code, text)
    return json.loads(text)


def _feed(desk: Desk, events: list, boot: str, board: int = 1, gid: str = GID) -> None:
    with desk.lock:
        desk.tables.take_all(parse(ROOT, t, p) for t, p in messages(events, board, game_id=gid, boot=boot))


def _standing(state: dict, name: str) -> dict:
    return next(p for p in state["standings"]["A"]["players"] if p["name"] == name)


class _Stream:
    """A live desk page's stream (``GET /stream``) read raw: what the desk pushed so far."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.sock.sendall(b"GET /stream HTTP/1.1\r\nHost: desk\r\n\r\n")
        self.seen = b""

    def until(self, *wanted: bytes, timeout: float = 10) -> bool:
        """Whether every one of ``wanted`` came in the stream within ``timeout`` s."""
        end = time.monotonic() + timeout
        while not all(w in self.seen for w in wanted) and time.monotonic() < end:
            self.sock.settimeout(max(0.05, end - time.monotonic()))
            try:
                self.seen += self.sock.recv(65536)
            except TimeoutError:
                break
        return all(w in self.seen for w in wanted)

    def close(self) -> None:
        self.sock.close()


def test_the_director_takes_the_other_version_and_every_page_and_export_follows(desk):
    first, fixed = two_versions()
    _feed(desk, first, "run-1")
    _feed(desk, game(2, ("Cid", "Dee")), "kiosk2", board=2, gid="g2")
    _feed(desk, fixed, "run-2")
    state = _get_json(desk.url + "state.json")
    (v,) = state["status"]["other_versions"]
    assert v["version"] == "1.80" and v["sentence"].startswith(
        "Game r1_b1 at table 1 has another version, which differs from event 11 (the judge's adjustment) on: ")
    table = _get_json(desk.url + "table/1.json")
    assert table["other_versions"] == [v] and table["flags"]["other_version"] and table["final"] == [649, 671]
    assert _standing(state, "Ann")["spread"] == -22
    stream = _Stream(desk.server.port)
    try:
        assert stream.until(b'"other_version":true')
        code, text = post(desk.url + "take-version", TAKE)
        assert code == 200, text
        took = json.loads(text)
        at = took["replaced_at"]
        assert took == {"board": 1, "game_id": GID, "replaced_at": at,
                        "players": [{"name": "Ann", "score": 639}, {"name": "Bob", "score": 671}],
                        "sentence": "Game r1_b1 at table 1 is now the version kiosk run 'run-2' sent: Ann 639 - Bob "
                                    f"671. The director took it at {clock_text(at)}; the version it replaced is kept "
                                    "in the desk's store."}
        # the live page's stream: the table's tile and the standings
        assert stream.until(f'"replaced_at":{at}'.encode(), b'"spread":-32'), stream.seen[-2000:]
    finally:
        stream.close()
    (res,) = [r for r in desk.store.results() if r.game_id == GID]
    rows = {r["game_id"]: r for r in _get_json(desk.url + "results.json")}
    assert rows[GID]["players"] == [{"name": "Ann", "score": 639, "win": 0.0}, {"name": "Bob", "score": 671, "win": 1.0}]
    assert (rows[GID]["corrected"], rows[GID]["replaced_at"], rows["g2"]["replaced_at"]) == (True, at, None)
    line = next(r for r in csv.DictReader(io.StringIO(http_get(desk.url + "results.csv")[1])) if r["game_id"] == GID)
    assert (line["score1"], line["score2"], line["spread"], line["corrected"]) == ("639", "671", "-32", "1")
    tsh = http_get(desk.url + "tsh/A.t")[1]
    assert [x.split(";")[1].split() for x in tsh.splitlines() if x.startswith(("Ann", "Bob"))] == [["639"], ["671"]]
    assert http_get(desk.url + f"games/1/{GID}.gcg") == (200, res.gcg)
    with zipfile.ZipFile(io.BytesIO(urllib.request.urlopen(desk.url + "round/1.zip", timeout=10).read())) as z:
        assert z.read(f"round1/board1-{GID}.gcg").decode() == res.gcg
    state = _get_json(desk.url + "state.json")
    assert state["status"]["other_versions"] == [] and _standing(state, "Ann")["spread"] == -32
    tile = next(t for t in state["tiles"] if t["board"] == 1)
    assert (tile["final"], tile["replaced_at"], tile["flags"]["other_version"]) == ([639, 671], at, False)
    kept = _get_json(desk.url + "versions/1.json")
    assert [(k["boot"], k["status"], k["events"]) for k in kept] == [("run-2", "taken", 80), ("run-1", "replaced", 79)]
    assert kept[1]["result"]["players"] == [["Ann", 649], ["Bob", 671]]
    assert post(desk.url + "take-version", TAKE) == (409, "Game r1_b1 at table 1 has no other version waiting to be "
                                                           "taken.")


def test_requests_that_may_not_take_the_version_are_refused_and_change_nothing(desk):
    first, fixed = two_versions()
    _feed(desk, first, "run-1")
    _feed(desk, game(2, ("Cid", "Dee")), "kiosk2", board=2, gid="g2")
    _feed(desk, fixed, "run-2")

    def now() -> tuple:
        state = _get_json(desk.url + "state.json")
        return (http_get(desk.url + "results.json"), state["status"]["other_versions"], state["standings"],
                desk.store.events_of(1, GID), desk.store.version_history(1))

    before = now()
    no_pin = {k: x for k, x in TAKE.items() if k != "pin"}
    lacks = {k: x for k, x in TAKE.items() if k != "game_id"}
    cases = [
        (no_pin, "application/json", 403,
         "Only the tournament director can take another version of a game: the request gave no director PIN."),
        ({**TAKE, "pin": "kiosk1-pw"}, "application/json", 403, "Wrong director PIN."),   # a table's login
        ({**TAKE, "pin": "public-pw"}, "application/json", 403, "Wrong director PIN."),   # a broadcaster's
        # what a page of another site can send through the director's browser: a form, never JSON
        (json.dumps(TAKE).encode(), "text/plain", 415,
         "The request must be sent as JSON (Content-Type: application/json), not as text/plain."),
        (b"pin=2468&board=1", "application/x-www-form-urlencoded", 415,
         "The request must be sent as JSON (Content-Type: application/json), not as "
         "application/x-www-form-urlencoded."),
        (b"{not json", "application/json", 400, "The request was not JSON."),
        ([1, 2], "application/json", 400, 'The request must be a JSON object: {"pin", "board", "game_id", "version"}.'),
        (lacks, "application/json", 400, 'The request lacks "game_id": the game\'s id, as the desk page shows it.'),
        ({**TAKE, "board": "1"}, "application/json", 400, '"board" must be the table number, a whole number, not "1".'),
        ({**TAKE, "board": 10**30}, "application/json", 400,
         '"board" must be a table number, 0 to 1000000, not 1000000000000000000….'),
        ({**TAKE, "version": 180}, "application/json", 400,
         '"version" must be the other version\'s name, as the desk page gave it, a text of 1 to 40 characters, not '
         "180."),
        ({**TAKE, "game_id": "nope"}, "application/json", 404, "There is no game 'nope' at table 1 at the desk."),
        ({**TAKE, "board": 7}, "application/json", 404, "There is no game 'r1_b1' at table 7 at the desk."),
        ({**TAKE, "board": 2, "game_id": "g2"}, "application/json", 409,
         "Game g2 at table 2 has no other version waiting to be taken."),
        ({**TAKE, "version": "1.79"}, "application/json", 409,
         "The other version of game r1_b1 at table 1 has changed since the page showed it: it is now kiosk run "
         "'run-2''s, with 80 events, differing from event 11 on. Look at it again before taking it."),
    ]
    for body, kind, code, said in cases:
        assert post(desk.url + "take-version", body, kind) == (code, said), body
        assert now() == before, body
    # yet another version came while the director looked at this one: his request names the one he saw
    _, fixed5 = two_versions(points=-5)
    _feed(desk, fixed5, "run-3")
    code, text = post(desk.url + "take-version", TAKE)
    assert code == 409 and "has changed since the page showed it: it is now kiosk run 'run-3''s" in text
    assert desk.store.results()[0].scores == (649, 671)


def test_a_take_the_store_cannot_keep_changes_nothing(desk, monkeypatch):
    first, fixed = two_versions()
    _feed(desk, first, "run-1")
    _feed(desk, fixed, "run-2")

    def full(*a: object) -> None:
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(desk.store, "replace_game", full)
    assert post(desk.url + "take-version", TAKE) == (
        503, "The other version of game r1_b1 at table 1 could not be saved (database or disk is full); nothing was "
             "changed.")
    assert desk.tables.tables[1].game.events == [e.to_dict() for e in first]
    assert desk.store.results()[0].scores == (649, 671) and desk.tables.status()["other_versions"][0]["takeable"]
    monkeypatch.undo()
    assert post(desk.url + "take-version", TAKE)[0] == 200


def test_taking_a_version_needs_a_director_pin_in_the_event(tmp_path):
    folder = event_folder(tmp_path, EVENT_TOML.replace('director_pin = "2468"\n', ""))
    desk = Desk(folder, BrokerConfig("127.0.0.1", 1, root=ROOT), http_port=0)
    desk.server.start()
    try:
        assert post(desk.url + "take-version", TAKE) == (
            404, "The desk lets the director take another version of a game only when event.toml gives a "
                 "director_pin.")
    finally:
        desk.server.stop()
        desk.store.close()


@needs_shared
def test_a_corrected_record_streamed_again_is_taken_by_the_director(broker, tmp_path):
    """The whole path: ``kiosk stream-game`` on a record (emely's phony written as a pass), then on the corrected
    record under the same ``#id``, through Mosquitto to the desk; the director takes the corrected one on the desk's
    HTTP side."""
    fixed = "#id r1 b3\n" + DOUG.read_text()
    record = tmp_path / "r1-b3.gcg"
    record.write_text(fixed.replace(">emely: DEIILTZ 4B TIL.. +24 79\n>emely: DEIILTZ --  -24 55\n",
                                    ">emely: DEIILTZ - +0 55\n"))
    desk = Desk(event_folder(tmp_path), BrokerConfig("127.0.0.1", broker.port, root=ROOT, client_id="take-desk"),
                http_port=0).start()

    def stream() -> None:
        r = subprocess.run([sys.executable, "-m", "kiosk.cli", "stream-game", str(record), "--mqtt",
                            f"127.0.0.1:{broker.port}", "--board", "3", "--root", ROOT],
                           capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stdout + r.stderr

    try:
        stream()
        assert wait_for(lambda: len(desk.store.results()) == 1, 20)
        (kept,) = desk.store.results()
        record.write_text(fixed)
        stream()

        def waiting() -> list:
            return _get_json(desk.url + "state.json")["status"]["other_versions"]
        assert wait_for(lambda: bool(waiting()) and waiting()[0]["takeable"], 20), desk.tables.status()
        (v,) = waiting()
        assert (v["board"], v["game_id"], v["from_event"], v["other"]["events"]) == (3, "r1_b3", 7, 33)
        code, text = post(desk.url + "take-version", {"pin": "2468", "board": 3, "game_id": "r1_b3",
                                                       "version": v["version"]})
        assert code == 200, text
        (res,) = desk.store.results()
        assert res.replaced_ts == json.loads(text)["replaced_at"] and res.gcg != kept.gcg
        assert ">emely: 4B TILAX +24 79" in res.gcg and ">emely: 4B TILAX +24 79" not in kept.gcg
        assert http_get(desk.url + "games/3/r1_b3.gcg") == (200, res.gcg)
        assert [k["status"] for k in _get_json(desk.url + "versions/3.json")] == ["taken", "replaced"]
    finally:
        desk.stop()

"""The director's POST /pairing against bodies a hostile or careless client sends: each is refused with a sentence
(4xx, never a 500), and a refused or unsaved pairing leaves the desk's pairings as they were. (The director's other
write, POST /take-version: tests/desk/test_desk_take_version.py.)"""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from desk_helpers import event_folder  # noqa: E402
from hostile_http import assert_refused_quietly, post  # noqa: E402


def _pair(board: object, rnd: int = 2, players: tuple[str, str] = ("Cid", "Bob")) -> bytes:
    return json.dumps({"pin": "2468", "round": rnd, "board": board, "players": list(players)}).encode()


def test_a_board_number_beyond_any_table_is_refused_and_pairs_nobody(desk):
    """Board 10**30 went through the checks, was paired in memory, then failed SQLite (500); from then on
    both players 'already played' on a board no kiosk can have."""
    before = dict(desk.config.pairings)
    code, text = post(desk.url + "pairing", _pair(10**30))
    assert code == 400 and "must be a whole number 0-1000000" in text
    assert desk.config.pairings == before and desk.store.pairings() == []
    code, text = post(desk.url + "pairing", _pair(3))
    assert code == 200, text


def test_a_deeply_nested_body_is_refused_as_not_json(desk):
    code, text = post(desk.url + "pairing", b"[" * 100_000 + b"]" * 100_000)
    assert (code, text) == (400, "The request was not JSON.")


def test_a_pairing_the_database_cannot_keep_changes_nothing(desk, monkeypatch):
    def full(*a: object) -> None:
        raise sqlite3.OperationalError("database or disk is full")

    before = dict(desk.config.pairings)
    monkeypatch.setattr(desk.store, "save_pairing", full)
    code, text = post(desk.url + "pairing", _pair(3))
    assert code == 503 and "could not be saved" in text and "nothing was changed" in text
    assert desk.config.pairings == before


def test_a_seated_player_is_named_as_registered(desk):
    code, text = post(desk.url + "pairing", _pair(5, rnd=1, players=("bob", "Cid")))   # Bob plays board 1
    assert code == 400 and text == "round 1 board 5: 'Bob' already plays on board 1 in round 1"


def test_wrong_director_pins_slow_their_address_down(desk):
    """300 wrong PINs took 0.26 s: every 4-digit PIN could be tried in seconds."""
    wrong = json.loads(_pair(3))
    wrong["pin"] = "0000"
    for _ in range(3):
        assert post(desk.url + "pairing", json.dumps(wrong).encode()) == (403, "Wrong director PIN.")
    code, text = post(desk.url + "pairing", _pair(3))   # the right PIN waits too
    assert code == 429 and text.startswith("Too many wrong director PINs: wait ")
    assert desk.config.pairings.get((2, 3)) is None


def test_a_director_request_must_be_sent_as_json_and_one_without_a_pin_is_said_so(desk):
    """POST /pairing took a body of any kind, so a page of another site could send it through the director's
    browser as a form (text/plain), without the browser asking the desk first; and a request with no PIN was
    answered 'Wrong director PIN.' and counted as a wrong guess. Every director's request is checked alike
    (kiosk.desk.director; POST /take-version: tests/desk/test_desk_take_version.py)."""
    pair = {"pin": "2468", "round": 2, "board": 3, "players": ["Cid", "Bob"]}
    assert post(desk.url + "pairing", json.dumps(pair).encode(), "text/plain") == (
        415, "The request must be sent as JSON (Content-Type: application/json), not as text/plain.")
    assert post(desk.url + "pairing", json.dumps({**pair, "pin": ""}).encode()) == (
        403, "Only the tournament director can pair boards: the request gave no director PIN.")
    for _ in range(2):   # with the request without a PIN, 3 wrong in a row would make the right PIN wait
        assert post(desk.url + "pairing", json.dumps({**pair, "pin": "0000"}).encode()) == (403, "Wrong director PIN.")
    assert desk.config.pairings.get((2, 3)) is None
    assert post(desk.url + "pairing", json.dumps(pair).encode())[0] == 200


def test_pin_waits_double_per_address_and_end():
    from kiosk.desk.pin_wait import PinWaits

    t = [0.0]
    w = PinWaits(free_tries=3, base_s=1, max_s=30, max_addresses=2, now=lambda: t[0])
    for _ in range(3):
        w.wrong("a")
    assert w.wait_s("a") == 1 and w.wait_s("b") == 0
    t[0] = 1.0
    assert w.wait_s("a") == 0
    w.wrong("a")
    assert w.wait_s("a") == 2
    for _ in range(20):
        w.wrong("a")
    assert w.wait_s("a") == 30
    w.right("a")
    assert w.wait_s("a") == 0
    for name in ("b", "c", "d"):   # at most max_addresses remembered
        w.wrong(name)
    assert len(w._wrong) == 2


def test_requests_that_are_not_http_are_refused_in_one_line_by_the_desk(desk, caplog):
    assert_refused_quietly(desk.server.port, "/layout.json", caplog)


@pytest.mark.parametrize(("body", "said"), [
    ({"pin": "2468"}, 'The request lacks "round": the round number, a whole number.'),
    ({"pin": "2468", "round": True, "board": 3, "players": ["Cid", "Bob"]},
     '"round" must be the round number, a whole number, not true.'),
    ({"pin": "2468", "round": 2, "board": "3", "players": ["Cid", "Bob"]},
     '"board" must be the board number, a whole number, not "3".'),
    ({"pin": "2468", "round": 2, "board": 3}, 'The request lacks "players": the two players\' names.'),
    ({"pin": "2468", "round": 2, "board": 3, "players": "Cid"},
     '"players" must be a list of two player names, not "Cid".'),
    ({"pin": "2468", "round": 2, "board": 3, "players": ["Cid", 7]},
     '"players" must be a list of two player names, not ["Cid", 7].'),
    ({"pin": "2468", "round": 9, "board": 3, "players": ["Cid", "Bob"]},
     "round 9 board 3: round 9 is not a round of the event (1-2)"),
])
def test_a_pairing_request_lacking_or_mistyping_a_field_names_it(desk, body, said):
    """{"pin": "2468"} alone was answered "'NoneType' object is not iterable"; a round of true was "round True"."""
    assert post(desk.url + "pairing", json.dumps(body).encode()) == (400, said)
    assert desk.config.pairings.get((2, 3)) is None


def test_a_pairing_request_that_is_no_object_is_said_so(desk):
    code, text = post(desk.url + "pairing", b"[1, 2]")
    assert (code, text) == (400, 'The request must be a JSON object: {"pin", "round", "board", "players"}.')


def test_an_event_file_value_is_shown_as_written_not_as_python(tmp_path):
    from kiosk.desk.event import EventFileError, load_event

    folder = event_folder(tmp_path, 'rounds = 1\n[[division]]\nname = "A"\nplayers = ["X", "Y"]\n'
                                    '[[pairing]]\nround = true\nboard = 1\nplayers = ["X", "Y"]\n')
    with pytest.raises(EventFileError, match=r"pairing 1: round true is not a round of the event \(1-1\)$"):
        load_event(folder)


def _open_stream(port: int, source: str = "127.0.0.1") -> tuple[object, bytes]:
    import socket

    s = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(source, 0))
    s.sendall(b"GET /stream HTTP/1.1\r\nHost: desk\r\n\r\n")
    head = b""
    while b"\r\n\r\n" not in head:
        head += s.recv(4096)
    return s, head


def test_one_address_cannot_take_every_live_stream(desk):
    """70 streams from one address locked every other client out; now the 9th from it is refused (429)."""
    from kiosk.desk.server import MAX_STREAMS_PER_ADDRESS

    opened = [_open_stream(desk.server.port) for _ in range(MAX_STREAMS_PER_ADDRESS)]
    try:
        assert all(head.startswith(b"HTTP/1.1 200") for _, head in opened)
        extra, head = _open_stream(desk.server.port)
        extra.settimeout(10)
        while b"close one" not in head:
            chunk = extra.recv(4096)
            if not chunk:
                break
            head += chunk
        extra.close()
        assert head.startswith(b"HTTP/1.1 429") and head.endswith(
            b"Too many live desk pages from your address (8 at once): close one and reload.")
        other, head = _open_stream(desk.server.port, source="127.0.0.2")   # another address: served
        assert head.startswith(b"HTTP/1.1 200")
        other.close()
    finally:
        for s, _ in opened:
            s.close()

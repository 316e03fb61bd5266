"""Helpers for the desk tests: an event folder, a Mosquitto with the desk's passwords and ACL, a desk on it, a
wait, and a game's judge-channel messages as a kiosk sends them."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from common_fixtures import wait_for  # noqa: F401 - the desk tests import it from here

from kiosk.desk.acl import acl_text, broker_lines, password_file
from kiosk.desk.ingest import BrokerConfig
from kiosk.desk.service import Desk
from kiosk.referee.events import Event
from kiosk.referee.simulate import random_game
from kiosk.stream.broker import LocalBroker
from kiosk.stream.envelope import encode, envelope
from kiosk.stream.mqtt import message_topic

ROOT = "scrabble/test"

EVENT_TOML = """
name = "Desk Test Open"
rounds = 2
director_pin = "2468"

[[division]]
name = "A"
players = [
  { name = "Ann", rating = 1800 },
  { name = "Bob", rating = 1700 },
  { name = "Cid", rating = 1600 },
  { name = "Dee", rating = 1500 },
]

[[pairing]]
round = 1
board = 1
players = ["Ann", "Bob"]

[[pairing]]
round = 1
board = 2
players = ["Cid", "Dee"]
"""


def event_folder(tmp: Path, text: str = EVENT_TOML) -> Path:
    d = tmp / "event"
    d.mkdir(exist_ok=True)
    (d / "event.toml").write_text(text, encoding="utf-8")
    return d


def acl_broker(tmp: Path, start_broker: Callable, users: dict[str, str], boards: list[int], *,
               root: str = ROOT) -> LocalBroker:
    """A Mosquitto of its own (the ``start_broker`` fixture) with ``users``' password file and the desk's ACL for
    ``boards`` under ``root``, both written in ``tmp``."""
    (tmp / "acl").write_text(acl_text(root, boards))
    password_file(tmp / "passwd", users)
    return start_broker(*broker_lines(tmp / "passwd", tmp / "acl"))


def start_desk(tmp: Path, port: int, password: str, client_id: str, *, root: str = ROOT, event: str = EVENT_TOML,
               data_dir: Path | None = None) -> Desk:
    """A started desk (HTTP on a free port) of ``event`` (written as :func:`event_folder` does) logged in to the
    broker on 127.0.0.1:``port`` as user ``desk`` with ``password``; its data in ``data_dir`` (default: the event
    folder's ``desk``)."""
    return Desk(event_folder(tmp, event), BrokerConfig("127.0.0.1", port, root=root, username="desk",
                                                       password=password, client_id=client_id),
                http_port=0, data_dir=data_dir).start()


def game(seed: int = 1, players: tuple[str, ...] = ("Ann", "Bob")) -> list[Event]:
    return random_game("nsf", seed=seed, players=players)


def messages(events: list[Event], board: int, *, game_id: str = "g1", boot: str = "boot1",
             ts0: int | None = None) -> list[tuple[str, bytes]]:
    """(topic, payload) of each event on the judge channel, as the kiosk's publisher sends them (``ts``: the
    wall clock, 1 ms apart and ending now, never in the future: a desk measuring its delay from them must not
    see a negative one; or ``ts0`` + i ms)."""
    out = []
    ts0 = int(time.time() * 1000) - len(events) if ts0 is None else ts0
    for i, ev in enumerate(events, 1):
        msg = envelope("event", "judge", game_id=game_id, board=board, boot=boot, n=i, seq=i, ts=ts0 + i,
                       event=ev.to_dict())
        out.append((message_topic(ROOT, msg), encode(msg)))
    return out


def snapshot_message(events: list[Event], board: int, *, game_id: str = "g1", boot: str = "boot1", n: int = 1,
                     ts0: int = 1_000) -> tuple[str, bytes]:
    """(topic, payload) of the kiosk's judge snapshot after ``events`` (the game so far, each with ``ts0`` + i
    ms, as :func:`messages` stamps them), with a placeholder state: the desk reads only its events."""
    body = [{"ts": ts0 + i, "event": ev.to_dict()} for i, ev in enumerate(events, 1)]
    msg = envelope("snapshot", "judge", game_id=game_id, board=board, boot=boot, n=n, seq=len(events),
                   ts=ts0 + len(events), state={}, events=body)
    return message_topic(ROOT, msg), encode(msg)


def two_versions(seed: int = 1, at: int = 10, points: int = -10) -> tuple[list[Event], list[Event]]:
    """Board 1's game of Ann and Bob as a kiosk first streamed it (649-671 for seed 1) and as corrected: the judge's
    ``points`` to Ann inserted after event ``at``, so the corrected version differs from event ``at + 1`` on
    (639-671 for the defaults) and has one event more."""
    from kiosk.referee.events import JudgeAdjustment

    first = game(seed, ("Ann", "Bob"))
    fix = JudgeAdjustment(t=first[at - 1].t + 1, player=0, points=points, reason="scoring error")
    return first, first[:at] + [fix] + first[at:]

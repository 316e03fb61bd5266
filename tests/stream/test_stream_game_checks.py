"""``kiosk stream-game`` publishes the record's own finals or nothing, one game id per game, and progress a log
can read: against a real local broker and the tournament desk on it."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time

import pytest
from common_fixtures import wait_for

from kiosk.desk.ingest import BrokerConfig
from kiosk.desk.service import Desk
from kiosk.referee.records import events_from_gcg
from kiosk.rules.gcg import parse_gcg, read_gcg
from kiosk.stream.publish import record_game_id
from kiosk.stream.subscriber import DeskSubscriber
from shared_data import SHARED, needs_shared

REAL = SHARED / "corpus" / "gcg" / "real"
JOSH = REAL / "woogles-io_liwords__pkg_omgwords_testdata__vs_josh_time_penalty.gcg"
ISSUE_476 = REAL / "domino14_macondo__preendgame_testdata__issue_476.gcg"
DOUG = REAL / "domino14_macondo__gcgio_testdata__doug_v_emely.gcg"
ROOT = "scrabble/local"


def _kiosk(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "kiosk.cli", *args], capture_output=True, text=True, timeout=timeout)


def _stream(path, port: int, board: int, *more: str) -> subprocess.CompletedProcess[str]:
    return _kiosk("stream-game", str(path), "--mqtt", f"127.0.0.1:{port}", "--board", str(board), *more)


def _desk(tmp_path, port: int) -> Desk:
    ev = tmp_path / "event"
    ev.mkdir()
    (ev / "event.toml").write_text('rounds = 1\n[[division]]\nname = "A"\nplayers = ["Ann", "Bob"]\n')
    return Desk(ev, BrokerConfig("127.0.0.1", port, root=ROOT, client_id="checks-desk"), http_port=0).start()


@needs_shared
@pytest.mark.parametrize("path, board, final", [(JOSH, 13, (387, 397)), (ISSUE_476, 14, (422, 443))])
def test_stream_game_publishes_the_record_s_finals_with_its_time_penalty(broker, tmp_path, path, board, final):
    """The desk, its results and r/*.result.json said cesar 457, josh 397 (the '(time) -70' line skipped)."""
    desk = _desk(tmp_path, broker.port)
    try:
        r = _stream(path, broker.port, board, "--records", str(tmp_path / "r"))
        assert r.returncode == 0 and r.stderr.count("events queued") == 1, r.stderr
        gid = record_game_id(read_gcg(path))
        result = json.loads((tmp_path / "r" / f"{gid}.result.json").read_text())
        assert tuple(result["scores"]) == final and result["adjustments"]["time_penalty"][0] > 0
        assert [p["win"] for p in result["players"]] == [0.0, 1.0]     # the second player wins, as recorded
        assert wait_for(lambda: len(desk.store.results()) == 1, 20)
        (res,) = desk.store.results()
        assert res.game_id == gid and tuple(s for _, s in res.players) == final
    finally:
        desk.stop()


@pytest.mark.parametrize("record, line, exit_code, said", [
    (">A: GJSTUXZ 8F JUGS +24 24\n>A: GJSTUXZ (challenge) +12345 12369\n>B: AEIOST? G7 O. +3 3\n", 4, 1,
     "A's challenge bonus: the record has 12345, the kiosk counts 5 under preset naspa. Nothing was published"),
    (">A: GJSTUXZ 8F JUGS +25 25\n", 3, 1, "A's play 8F JUGS: the record has 25, the kiosk counts 24"),
    (">A: AEINRST 8D RETAINS +999999999999999999999999 999999999999999999999999\n", 3, 2,
     "a score of "),
])
def test_stream_game_refuses_a_record_whose_scores_are_not_the_kiosk_s(broker, tmp_path, record, line, exit_code,
                                                                       said):
    """A challenge bonus of +12345 and a 24-digit score streamed with exit 0."""
    gcg = tmp_path / "bad.gcg"
    gcg.write_text("#player1 A Alice\n#player2 B Bob\n" + record)
    follower = DeskSubscriber("127.0.0.1", broker.port, [f"{ROOT}/judge/board/9/#"], "refused-desk")
    try:
        r = _stream(gcg, broker.port, 9, "--records", str(tmp_path / "r"))
        assert r.returncode == exit_code and f"{gcg}:{line}: {said}" in r.stderr, r.stderr
        assert r.stderr.startswith("kiosk stream-game: ") and r.stderr.count("\n") == 1
        assert "Traceback" not in r.stderr and r.stdout == ""
        time.sleep(0.5)
        assert follower.follower.count(9) == 0 and not list((tmp_path / "r").iterdir())   # nothing published
    finally:
        follower.close()


@needs_shared
def test_two_games_of_one_file_name_are_two_games_and_the_same_record_is_one(broker, tmp_path):
    """Two different x.gcg on board 20: the second's 27 events were 'conflict' at the desk and its result lost;
    with --records the second overwrote the first's files."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first, second = tmp_path / "a" / "x.gcg", tmp_path / "b" / "x.gcg"
    first.write_bytes(DOUG.read_bytes())
    second.write_bytes(JOSH.read_bytes())
    records = tmp_path / "r"
    desk = _desk(tmp_path, broker.port)
    try:
        ids = []
        for path in (first, second):
            r = _stream(path, broker.port, 20, "--records", str(records))
            assert r.returncode == 0, r.stderr
            ids.append(record_game_id(read_gcg(path)))
            assert f"game {ids[-1]}:" in r.stdout
        assert ids[0] != ids[1]
        assert sorted(p.name for p in records.iterdir()) == sorted(f"{g}{ext}" for g in ids
                                                                    for ext in (".gcg", ".result.json"))
        assert wait_for(lambda: len(desk.store.results()) == 2, 20)
        assert {res.game_id: tuple(s for _, s in res.players) for res in desk.store.results()} == \
            {ids[0]: (451, 345), ids[1]: (387, 397)}
        before = {p.name: p.read_bytes() for p in records.iterdir()}
        crlf = tmp_path / "copy-with-crlf.gcg"   # the same record again, renamed and with other line ends
        crlf.write_bytes(DOUG.read_bytes().replace(b"\n", b"\r\n"))
        for path in (first, crlf):
            r = _stream(path, broker.port, 20, "--records", str(records))
            assert r.returncode == 0 and f"game {ids[0]}:" in r.stdout, r.stderr
        assert {p.name: p.read_bytes() for p in records.iterdir()} == before
        time.sleep(1.0)
        assert len(desk.store.results()) == 2
    finally:
        desk.stop()


@needs_shared
def test_an_awkward_id_is_the_same_game_id_in_stream_game_its_records_and_the_desk(broker, tmp_path):
    """'#id  ../Round 3/board 7 ' is one id everywhere: the referee's events of the record, stream-game's line,
    the records folder's two files (inside it) and the desk's result."""
    gcg = tmp_path / "round 3.gcg"
    gcg.write_text("#id  ../Round 3/board 7 \n" + DOUG.read_text())
    gid = events_from_gcg(gcg)[0].game_id
    assert gid == "Round_3_board_7"
    records = tmp_path / "r"
    desk = _desk(tmp_path, broker.port)
    try:
        r = _stream(gcg, broker.port, 21, "--records", str(records))
        assert r.returncode == 0 and f"game {gid}:" in r.stdout, r.stdout + r.stderr
        assert sorted(p.name for p in records.iterdir()) == [f"{gid}.gcg", f"{gid}.result.json"]
        assert json.loads((records / f"{gid}.result.json").read_text())["game_id"] == gid
        assert wait_for(lambda: len(desk.store.results()) == 1, 20)
        assert desk.store.results()[0].game_id == gid
    finally:
        desk.stop()


@needs_shared
def test_a_fixed_record_streamed_again_under_its_id_is_the_game_s_other_version_at_the_desk(broker, tmp_path):
    """r1-b3.gcg streamed with emely's phony written as a pass, then fixed and streamed again (#id unchanged): the
    desk counted some 25 conflicts (a line each) and one event its referee refused, and flagged the board waiting;
    then it counted the second run's messages and kept nothing of them. It now keeps the fixed record as the game's
    other version, from event 7 on, for the director to take (tests/desk/test_desk_take_version.py takes it)."""
    fixed = "#id r1 b3\n" + DOUG.read_text()
    mistaken = tmp_path / "r1-b3.gcg"
    mistaken.write_text(fixed.replace(">emely: DEIILTZ 4B TIL.. +24 79\n>emely: DEIILTZ --  -24 55\n",
                                      ">emely: DEIILTZ - +0 55\n"))
    desk = _desk(tmp_path, broker.port)
    try:
        r = _stream(mistaken, broker.port, 22)
        assert r.returncode == 0 and "game r1_b3: 30 events" in r.stdout, r.stdout + r.stderr
        assert wait_for(lambda: len(desk.store.results()) == 1, 20)
        mistaken.write_text(fixed)                     # the director fixes the record and streams it again
        r = _stream(mistaken, broker.port, 22)
        assert r.returncode == 0 and "game r1_b3: 33 events" in r.stdout, r.stdout + r.stderr
        waiting = lambda: desk.tables.status()["other_versions"]  # noqa: E731
        assert wait_for(lambda: waiting() and waiting()[0]["other"]["events"] == 33, 20), desk.tables.status()
        time.sleep(0.5)
        st = desk.tables.status()
        assert st["refused"] == {} and st["refused_total"] == 0, st
        (v,) = st["other_versions"]
        assert (v["board"], v["game_id"], v["from_event"], v["takeable"]) == (22, "r1_b3", 7, True)
        assert desk.tables.tile(22)["flags"]["waiting"] is False and desk.tables.tables[22].game.applied == 30
        (res,) = desk.store.results()
        assert res.game_id == "r1_b3" and tuple(s for _, s in res.players) == (451, 345)
    finally:
        desk.stop()


def test_record_game_id_follows_what_the_record_says_happened():
    text = "#player1 A Alice\n#player2 B Bob\n>A: GJSTUXZ 8F JUGS +24 24\n"
    gid = record_game_id(parse_gcg(text, "x.gcg"))
    assert gid.startswith("A-B-") and len(gid) == len("A-B-") + 12
    assert record_game_id(parse_gcg(text + "#note a comment\n\n", "y.gcg")) == gid   # notes, file name: same game
    assert record_game_id(parse_gcg(text.replace("+24 24", "+24 24\n>B: AEIOST? G7 O. +3 3"), "x.gcg")) != gid
    assert record_game_id(parse_gcg(text.replace("Bob", "Bo"), "x.gcg")) != gid


def test_a_record_that_names_itself_is_published_under_its_own_id():
    # '#id AUTHORITY ID' (a server's or a tournament program's name of the game) is the id, as the demo names it;
    # the bench's rounds name their games 'bench-rR-bB' and wait for results under those names
    text = "#player1 A Alice\n#player2 B Bob\n>A: GJSTUXZ 8F JUGS +24 24\n"
    assert record_game_id(parse_gcg("#id io.woogles 7xYz\n" + text, "x.gcg")) == "io.woogles_7xYz"
    assert record_game_id(parse_gcg("#id bench-r2-b7\n" + text, "x.gcg")) == "bench-r2-b7"
    assert record_game_id(parse_gcg("#id ../../etc passwd\n" + text, "x.gcg")) == "etc_passwd"   # a file name part
    assert record_game_id(parse_gcg("#id \n" + text, "x.gcg")).startswith("A-B-")              # an empty #id
    assert record_game_id(parse_gcg("#id ///\n" + text, "x.gcg")).startswith("A-B-")   # nothing of it is safe
    # the kiosk's own export ('#id kiosk <game_id>', records folder, desk downloads) names the game it came from
    assert record_game_id(parse_gcg("#id kiosk doug-emely-589d5bf73a8f\n" + text, "x.gcg")) == "doug-emely-589d5bf73a8f"


AWKWARD_IDS = ["", "#id\n", "#id \t \n", "#id   r1 b3   \n", "#id ../../etc passwd\n", "#id ///\n", "#id ..\n",
               "#id Türnier/Runde 3\n", "#id a\\b:c*d?e\n", "#id " + "x" * 100 + "\n", "#id kiosk board3-61000\n",
               "#id first\n#id second one\n"]


@pytest.mark.parametrize("header", AWKWARD_IDS)
def test_one_record_is_one_game_id_for_the_referee_and_the_publisher(header):
    """kiosk replay's referee and stream-game named one record differently: '#id ../../etc passwd' was
    '../../etc_passwd' to the referee and 'etc_passwd' to the publisher, a record without #id (or with an empty
    one) was its file name to the referee and its nicks and hash to the publisher."""
    text = header + "#player1 A Alice\n#player2 B Bob\n>A: GJSTUXZ 8F JUGS +24 24\n"
    referee = [events_from_gcg(parse_gcg(text, name))[0].game_id for name in ("r1-b3.gcg", "other name.gcg")]
    assert referee[0] == referee[1] == record_game_id(parse_gcg(text, "x.gcg")), header
    assert re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}", referee[0]), referee[0]


@needs_shared
def test_stream_game_progress_off_a_terminal_is_one_line(broker):
    """Its progress read '20/35 events queued35/35 events queued' in a log (carriage returns, no newline)."""
    r = _stream(DOUG, broker.port, 7)
    assert r.returncode == 0, r.stderr
    assert r.stderr == "33/33 events queued\n"


@pytest.mark.parametrize("board", ["-1", "1000001", "99999999999999999999999"])
def test_stream_game_refuses_a_table_number_the_desk_would_not_take(tmp_path, board):
    """--board 99999999999999999999999 was published (exit 0): past the desk's and the subscribers' bound."""
    gcg = tmp_path / "g.gcg"
    gcg.write_text("#player1 A Alice\n#player2 B Bob\n>A: GJSTUXZ 8F JUGS +24 24\n")
    r = _stream(gcg, 9, int(board))
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr == f"kiosk stream-game: --board: {board} is not a table number (0 to 1,000,000)\n"

"""The kiosk's flags on the desk, through a real Mosquitto with the shipped ACL (docs/mosquitto/): a kiosk's
:class:`~kiosk.app.flags.TableFlags` publishes judge called, device health and journal trouble, retained, on
its judge channel; the desk's own reader shows them on the board's tile. The public never sees them."""

from __future__ import annotations

import time
from pathlib import Path
from types import SimpleNamespace

import paho.mqtt.client as mqtt
from common_fixtures import make_kiosk
from desk_helpers import start_desk, wait_for

from kiosk.app.flags import TableFlags
from kiosk.desk.acl import kiosk_user, password_file
from kiosk.devices.health import HealthTracker
from kiosk.referee.events import ClockNeutralised, ClockResumed
from kiosk.store import JOURNAL_FULL, JournalFull
from kiosk.stream.mqtt import MqttConfig, MqttPublisher

DOCS = Path(__file__).resolve().parents[2] / "docs" / "mosquitto"
ROOT = "scrabble/flags-test"
USERS = {"desk": "desk-pw", "public": "public-pw", kiosk_user(1): "k1-pw", kiosk_user(2): "k2-pw"}
EVENT = 'name = "Flags Open"\nrounds = 1\n[[division]]\nname = "A"\nplayers = ["Ann", "Bob"]\n'


def test_camera_down_and_judge_called_show_on_the_desk(tmp_path, start_broker):
    password_file(tmp_path / "passwd", USERS)
    broker = start_broker("allow_anonymous false", f"password_file {tmp_path / 'passwd'}",
                          f"acl_file {DOCS / 'acl'}")
    desk = start_desk(tmp_path, broker.port, USERS["desk"], "desk-flags-test", root=ROOT, event=EVENT)
    public_seen: list[str] = []
    public = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="flags-public")
    public.username_pw_set("public", USERS["public"])
    public.on_message = lambda c, u, m: public_seen.append(m.topic)
    public.on_connect = lambda c, u, f, rc, p: c.subscribe(f"{ROOT}/#", qos=1)
    public.connect("127.0.0.1", broker.port)
    public.loop_start()
    kiosk, _ = make_kiosk(tmp_path)
    camera, buttons = HealthTracker("camera", "synthetic"), HealthTracker("buttons", "gpio")
    devices = SimpleNamespace(health=lambda: [buttons.snapshot(), camera.snapshot()])
    pub = MqttPublisher(MqttConfig(host="127.0.0.1", port=broker.port, board=1, root=ROOT,
                                   username=kiosk_user(1), password=USERS[kiosk_user(1)])).start()
    flags = TableFlags(pub, kiosk, devices)

    def tile() -> dict:
        with desk.lock:
            return desk.tables.tile(1)["flags"] if 1 in desk.tables.tables else {}

    try:
        assert flags.update() and not flags.update()       # sent once; unchanged flags are not sent again
        assert wait_for(lambda: tile().get("degraded") == [] and tile().get("judge_called") is False)
        camera.set("down", "the camera stopped answering")
        assert flags.update()
        assert wait_for(lambda: tile().get("degraded") == ["camera"]), tile()
        kiosk.view.needs_judge = True
        flags.update()
        assert wait_for(lambda: tile().get("judge_called") is True), tile()
        kiosk.view.needs_judge = False
        flags.update()
        assert wait_for(lambda: tile().get("judge_called") is False), tile()
        t = kiosk.now()
        assert kiosk.session.apply(ClockNeutralised(t=t, reason="judge call")).accepted   # the clock stopped
        flags.update()
        assert wait_for(lambda: tile().get("judge_called") is True), tile()
        assert kiosk.session.apply(ClockResumed(t=t + 1000)).accepted
        camera.set("ok")
        def full(*a, **kw):
            raise JournalFull("j.sqlite: the disk is full - the event was NOT recorded: database or disk is full")

        kiosk.session.journal.heartbeat = full
        kiosk.session.heartbeat(t + 2000)         # the journal full: the game paused
        assert kiosk.session.paused
        flags.update()
        assert wait_for(lambda: tile().get("judge_called") is False and tile().get("journal") == JOURNAL_FULL), tile()
        assert tile()["degraded"] == []
        assert sum(desk.tables.counts.values()) == 0      # nothing refused
        assert public_seen and not [t for t in public_seen if t.endswith("/flags")]
    finally:
        kiosk.session.paused_since = None
        pub.stop()
        public.loop_stop()
        desk.stop()


def test_flags_are_retained_for_a_desk_that_starts_later(tmp_path, start_broker):
    password_file(tmp_path / "passwd", USERS)
    broker = start_broker("allow_anonymous false", f"password_file {tmp_path / 'passwd'}",
                          f"acl_file {DOCS / 'acl'}")
    kiosk, _ = make_kiosk(tmp_path)
    camera = HealthTracker("camera", "synthetic", state="degraded")
    pub = MqttPublisher(MqttConfig(host="127.0.0.1", port=broker.port, board=2, root=ROOT,
                                   username=kiosk_user(2), password=USERS[kiosk_user(2)])).start()
    kiosk.view.needs_judge = True
    TableFlags(pub, kiosk, SimpleNamespace(health=lambda: [camera.snapshot()])).update()
    assert wait_for(lambda: pub.connected) and pub.wait_acked(10)
    time.sleep(0.5)
    desk = start_desk(tmp_path, broker.port, USERS["desk"], "desk-flags-late", root=ROOT, event=EVENT)
    try:
        def tile() -> dict:
            with desk.lock:
                return desk.tables.tile(2)["flags"] if 2 in desk.tables.tables else {}
        assert wait_for(lambda: tile().get("judge_called") is True and tile().get("degraded") == ["camera"]), tile()
    finally:
        pub.stop()
        desk.stop()


def test_no_flags_without_the_judge_channel():
    pub = MqttPublisher(MqttConfig(host="127.0.0.1", port=1, board=3, root=ROOT, channels=frozenset({"public"})))
    assert pub.set_flags(True, {"camera": "down"}, None) is False

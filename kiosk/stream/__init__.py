"""Streaming the game: the event schema, the live web page, the MQTT tournament bus, overlay files, records.

Wiring in the kiosk app (see ``docs/stream.md``)::

    hub = StreamHub(board=7, delay_ms=2 * 60_000)              # public channel 2 minutes behind
    hub.add_sink(MqttPublisher(MqttConfig(host="desk.local", board=7)).start())
    overlay = OverlayWriter("/var/lib/kiosk/overlay", board=7)
    hub.add_sink(overlay)
    hub.add_sink(LiveServer(overlay, port=8080).start())   # loopback unless host= a LAN address
    hub.add_sink(RecordsWriter("/var/lib/kiosk/records"))
    hub.seed(session.referee.events)                          # after a restart: the journal's events
    hub.start()
    ...
    if session.apply(event):                                  # accepted and journaled
        hub.publish(event)                                    # never blocks
"""

from kiosk.referee.records import RecordEventsError, events_from_gcg
from kiosk.stream.envelope import SCHEMA_VERSION, envelope, load_schema
from kiosk.stream.hub import Sink, StreamHub
from kiosk.stream.mqtt import MqttConfig, MqttConfigError, MqttPublisher, message_topic, topics
from kiosk.stream.overlay import OverlayWriter
from kiosk.stream.publish import PublishError, PublishReport, parse_host_port, publish_game
from kiosk.stream.records import RecordsWriter, gcg_text, result_dict
from kiosk.stream.server import LiveServer
from kiosk.stream.snapshot import redact, snapshot
from kiosk.stream.subscriber import Follower

__all__ = [
    "SCHEMA_VERSION", "Follower", "LiveServer", "MqttConfig", "MqttConfigError", "MqttPublisher",
    "OverlayWriter", "PublishError", "PublishReport", "RecordEventsError", "RecordsWriter", "Sink", "StreamHub", "envelope",
    "events_from_gcg", "gcg_text", "load_schema", "message_topic", "parse_host_port", "publish_game", "redact",
    "result_dict", "snapshot", "topics",
]

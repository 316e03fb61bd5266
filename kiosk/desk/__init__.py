"""The tournament desk: every table of an event on one page, results into SQLite and out to tsh.

``kiosk desk`` subscribes to the kiosks' live judge channel on the event's Mosquitto (see ``docs/desk.md``):

* :mod:`kiosk.desk.event` - the event folder (``event.toml``: divisions, rounds, players, pairings).
* :mod:`kiosk.desk.message` - checking one MQTT message (topic grammar, envelope, forgery) before use.
* :mod:`kiosk.desk.store` - SQLite (WAL): every event by its identity, and one result per game.
* :mod:`kiosk.desk.tables` - folding each table's events into a referee; tiles, flags, finished games.
* :mod:`kiosk.desk.ingest` - the MQTT subscriber (paho-mqtt, QoS 1, persistent session).
* :mod:`kiosk.desk.standings` - wins (ties half), spread and games still running per division.
* :mod:`kiosk.desk.tsh` - tsh ``.t`` division files: parse, merge a round into a copy, render.
* :mod:`kiosk.desk.exports` - results.json / results.csv rows and the zip of a round's GCGs.
* :mod:`kiosk.desk.server` - the desk page (SSE) and the export routes (aiohttp).
* :mod:`kiosk.desk.service` - wiring of the above for the ``kiosk desk`` command.
* :mod:`kiosk.desk.acl` - the event broker's ACL and password file (kiosks write only their own board).
"""

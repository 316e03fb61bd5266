"""The tournament desk: every table of an event on one page, results into SQLite and out to tsh.

``kiosk desk`` subscribes to the kiosks' live judge channel on the event's Mosquitto (see ``docs/desk.md``):

* :mod:`kiosk.desk.event` - the event folder (``event.toml``: divisions, rounds, players, pairings).
* :mod:`kiosk.desk.message` - checking one MQTT message (topic grammar, envelope, forgery) before use.
* :mod:`kiosk.desk.store` - SQLite (WAL): every event by its identity, and one result per game.
* :mod:`kiosk.desk.version_store` - the store's record of the other versions of games (never deleted).
* :mod:`kiosk.desk.games` - what the desk holds of each board (``Table``), of each of its games (``Game``) and of
  another version of one (``Version``).
* :mod:`kiosk.desk.boards` - the boards' games in memory: loaded from the store, results stored, views.
* :mod:`kiosk.desk.tables` - folding each table's events into a referee; flags, finished games.
* :mod:`kiosk.desk.versions` - a game streamed again with other moves: its other version kept, shown, taken.
* :mod:`kiosk.desk.tiles` - the page's view of a board: its tile and its full detail.
* :mod:`kiosk.desk.ingest` - the MQTT subscriber (paho-mqtt, QoS 1, persistent session).
* :mod:`kiosk.desk.standings` - wins (ties half), spread and games still running per division.
* :mod:`kiosk.desk.tsh` - tsh ``.t`` division files: parse, merge a round into a copy, render.
* :mod:`kiosk.desk.exports` - results.json / results.csv rows and the zip of a round's GCGs.
* :mod:`kiosk.desk.server` - the desk over HTTP (aiohttp): the connection gate, the routes, its thread.
* :mod:`kiosk.desk.live_routes` - the page, its state and its SSE stream of changed tables.
* :mod:`kiosk.desk.export_routes` - the downloads: results, tsh ``.t``, a round's zip, a game's GCG.
* :mod:`kiosk.desk.pairing_routes` - the players, a board's next pairing, the director's assignment.
* :mod:`kiosk.desk.version_routes` - the director's taking of another version; the versions kept of a table.
* :mod:`kiosk.desk.director` - the director's requests: JSON with the director PIN, checked alike.
* :mod:`kiosk.desk.route_base` - what the route parts share: the server's attributes, its log, work off the loop.
* :mod:`kiosk.desk.service` - wiring of the above for the ``kiosk desk`` command.
* :mod:`kiosk.desk.acl` - the event broker's ACL and password file (kiosks write only their own board).
"""

"""The desk service: the event folder, the store, the tables, the MQTT subscriber and the web server together.

``Desk(event_dir, broker, http_host, http_port, data_dir).start()``: restores every table from SQLite, serves
the page, then subscribes. :meth:`Desk.stop` stops in the reverse order.
"""

from __future__ import annotations

import dataclasses
import threading
from pathlib import Path

from kiosk.desk.event import EventConfig, EventFileError, load_event
from kiosk.desk.ingest import BrokerConfig, DeskIngest, default_client_id
from kiosk.desk.server import DeskServer
from kiosk.desk.store import ResultsStore
from kiosk.desk.tables import Tables
from kiosk.desk.tsh import add_tfile_byes


class Desk:
    """See module doc.

    Args:
        event: the event folder (``event.toml``) or a loaded :class:`EventConfig`.
        broker: where to subscribe (no ``client_id``: :func:`~kiosk.desk.ingest.default_client_id` of the data
            folder). http_host / http_port: where to serve (port 0: any free port).
        data_dir: the desk's own folder (``desk.sqlite``, the ``tsh/`` copies); default ``EVENT/desk``.
    Raises :class:`~kiosk.desk.event.EventFileError`, :class:`~kiosk.desk.store.StoreError`,
    :class:`~kiosk.desk.ingest.IngestConfigError`, ``OSError`` (cannot listen).
    """

    def __init__(self, event: str | Path | EventConfig, broker: BrokerConfig, *, http_host: str = "127.0.0.1",
                 http_port: int = 8090, data_dir: str | Path | None = None) -> None:
        self.config = event if isinstance(event, EventConfig) else load_event(event)
        add_tfile_byes(self.config)   # the standings count a bye the tfile holds as the .t export does
        self.data_dir = Path(data_dir) if data_dir is not None else self.config.folder / "desk"
        self.store = ResultsStore(self.data_dir / "desk.sqlite")
        self.tables = Tables(self.config, self.store)
        self.lock = threading.Lock()
        if not broker.client_id:
            broker = dataclasses.replace(broker, client_id=default_client_id(self.data_dir))
        self.ingest = DeskIngest(self.tables, self.lock, broker)
        self.server = DeskServer(self.tables, self.store, self.config, self.lock, host=http_host, port=http_port,
                                 out_dir=self.data_dir, status_extra=self._broker_status)
        self.restored = 0
        self.pairing_problems: list[str] = []
        for rnd, board, names in self.store.pairings():   # set at the desk before a restart: they still hold
            try:
                self.config.assign(rnd, board, names)
            except EventFileError as exc:
                self.pairing_problems.append(f"a pairing set at the desk no longer fits the event: {exc}")

    def _broker_status(self) -> dict[str, object]:
        return {"broker": {"connected": self.ingest.connected, "connections": self.ingest.connections,
                           "errors": list(self.ingest.errors)[-3:], "dropped_ticks": self.ingest.dropped_ticks},
                "ingest": dict(self.ingest.stats)}

    def start(self) -> Desk:
        """Restore the tables from SQLite, serve, subscribe. Raises ``OSError`` when it cannot listen."""
        with self.lock:
            self.restored = self.tables.restore()
        self.tables.flush()
        self.server.start()
        self.ingest.start()
        return self

    def stop(self) -> None:
        """Unsubscribe (after folding what arrived), stop serving, close the store."""
        self.ingest.stop()
        self.server.stop()
        self.store.close()

    @property
    def url(self) -> str:
        """The desk page's URL."""
        return self.server.url

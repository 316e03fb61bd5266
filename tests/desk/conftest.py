"""The desk tests' shared fixtures: a desk with no broker, its web server started; desk web servers made to order."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from desk_helpers import ROOT, event_folder  # noqa: E402

from kiosk.desk.ingest import BrokerConfig  # noqa: E402
from kiosk.desk.server import DeskServer  # noqa: E402
from kiosk.desk.service import Desk  # noqa: E402
from kiosk.desk.store import ResultsStore  # noqa: E402
from kiosk.desk.tables import Tables  # noqa: E402


@pytest.fixture
def desk(tmp_path: Path) -> Iterator[Desk]:
    """A desk for the example event, no broker (port 1: never reached), its web server on a free port."""
    d = Desk(event_folder(tmp_path), BrokerConfig("127.0.0.1", 1, root=ROOT), http_port=0)
    d.server.start()
    yield d
    d.server.stop()
    d.store.close()


@pytest.fixture
def desk_server(tmp_path: Path) -> Iterator[Callable[..., DeskServer]]:
    """A maker of desk web servers on free ports, each with its own results store (keyword arguments go to
    :class:`DeskServer`; ``max_connections`` sets its connection table), all stopped after the test."""
    servers: list[DeskServer] = []

    def make(max_connections: int | None = None, **kw: float) -> DeskServer:
        store = ResultsStore(tmp_path / f"desk{len(servers)}.sqlite")
        srv = DeskServer(Tables(None, store), store, None, threading.Lock(), port=0, **kw)
        if max_connections is not None:
            srv.max_connections = max_connections
        servers.append(srv.start())
        return srv

    yield make
    for s in servers:
        s.stop()
        s.store.close()

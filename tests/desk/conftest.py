"""The desk tests' shared fixture: a desk with no broker, its web server started."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from desk_helpers import ROOT, event_folder  # noqa: E402

from kiosk.desk.ingest import BrokerConfig  # noqa: E402
from kiosk.desk.service import Desk  # noqa: E402


@pytest.fixture
def desk(tmp_path: Path) -> Iterator[Desk]:
    """A desk for the example event, no broker (port 1: never reached), its web server on a free port."""
    d = Desk(event_folder(tmp_path), BrokerConfig("127.0.0.1", 1, root=ROOT), http_port=0)
    d.server.start()
    yield d
    d.server.stop()
    d.store.close()

"""Two desks on one broker: each has a client id of its own by default, and two of one id are told so."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from desk_helpers import ROOT, wait_for  # noqa: E402

from kiosk.desk.event import load_event  # noqa: E402
from kiosk.desk.ingest import BrokerConfig, DeskIngest, default_client_id  # noqa: E402
from kiosk.desk.service import Desk  # noqa: E402
from kiosk.desk.store import ResultsStore  # noqa: E402
from kiosk.desk.tables import Tables  # noqa: E402

EVENT = 'rounds = 1\n[[division]]\nname = "A"\nplayers = ["X", "Y"]\n'


def _event(folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / "event.toml").write_text(EVENT)
    return folder


def test_each_desk_has_its_own_stable_default_client_id(tmp_path):
    """Every desk was 'kiosk-desk': two desks on one broker pushed each other off it, silently."""
    a = Desk(_event(tmp_path / "a"), BrokerConfig("127.0.0.1", 1, root=ROOT), http_port=0)
    b = Desk(_event(tmp_path / "b"), BrokerConfig("127.0.0.1", 1, root=ROOT), http_port=0)
    ids = [a.ingest.config.client_id, b.ingest.config.client_id]
    assert ids[0] != ids[1] and all(i.startswith("kiosk-desk-") and len(i) <= 23 for i in ids)
    assert ids[0] == default_client_id(tmp_path / "a" / "desk")   # the same desk again: the same session
    given = Desk(tmp_path / "a", BrokerConfig("127.0.0.1", 1, root=ROOT, client_id="desk-1"), http_port=0,
                 data_dir=tmp_path / "a2")
    assert given.ingest.config.client_id == "desk-1"
    for d in (a, b, given):
        d.store.close()


def test_two_desks_of_one_client_id_are_told_once_that_another_took_over(tmp_path, broker):
    ingests = []
    for name in ("a", "b"):
        cfg = load_event(_event(tmp_path / name))
        ingest = DeskIngest(Tables(cfg, ResultsStore(tmp_path / name / "desk.sqlite")), threading.Lock(),
                            BrokerConfig("127.0.0.1", broker.port, root=ROOT, client_id="same-desk"))
        ingests.append(ingest.start())
    try:
        assert wait_for(lambda: any(i.error_total for i in ingests), timeout=60)
        told = [e for i in ingests for e in i.errors]
        assert told[0].startswith("another client with id same-desk took over the connection: the broker dropped "
                                  "the desk 3 times within 60 s and let it straight back in each time; give each "
                                  "desk its own --client-id")
        assert wait_for(lambda: sum(i.connections for i in ingests) >= 12, timeout=60)
        assert all(i.error_total <= 1 for i in ingests)   # said once, not at every push
    finally:
        for i in ingests:
            i.stop()

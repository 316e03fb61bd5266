"""What the desk server's route parts (:mod:`kiosk.desk.live_routes`, :mod:`kiosk.desk.export_routes`,
:mod:`kiosk.desk.pairing_routes`, :mod:`kiosk.desk.version_routes`) share: the server's attributes they read, its log, and running their blocking
work (the tables' lock, SQLite, the disk) off the event loop."""

from __future__ import annotations

import asyncio
import logging
import threading
from typing import Any

from kiosk.desk.event import EventConfig
from kiosk.desk.store import ResultsStore
from kiosk.desk.tables import Tables

log = logging.getLogger("kiosk.desk.server")   # the desk server's log, one for all its routes


class RouteBase:
    """The attributes of :class:`~kiosk.desk.server.DeskServer` every route part reads (set in its ``__init__``):
    ``lock`` guards ``tables``; ``config`` is the event or None."""

    tables: Tables
    store: ResultsStore
    config: EventConfig | None
    lock: threading.Lock


async def off_loop(fn: Any, *args: Any) -> Any:
    """Run ``fn(*args)`` on the default thread pool: what waits for the tables' lock or the disk never holds
    up the event loop (the SSE streams of every other client)."""
    return await asyncio.get_running_loop().run_in_executor(None, fn, *args)

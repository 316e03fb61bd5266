"""The table and round numbers in the desk's URLs (``/table/{N}.json``, ``/round/{R}.zip``, ``?round=R`` ...), each
read the same way: what is no whole number is refused with 400 naming it ("The round must be a whole number, not
'abc'."), a whole number that is no table or round of the event with 404 saying there is no such table or round
("There is no round 99999999999: the event's rounds are 1 to 7."). aiohttp is imported when a refusal is made, as
in the server."""

from __future__ import annotations

import re
from typing import Any

from kiosk.desk.event import EventConfig
from kiosk.stream.subscriber import MAX_BOARD

_WHOLE = re.compile(r"-?[0-9]+")   # ASCII digits only: '²' and '٣' are digits to str.isdigit, not to int()


def table_number(request: Any, key: str = "board") -> int:
    """The table number in ``request``'s path at ``key``: 0 to MAX_BOARD, as a kiosk's messages are taken.

    Raises:
        aiohttp.web.HTTPBadRequest: it is no whole number.
        aiohttp.web.HTTPNotFound: no table has it.
    """
    from aiohttp import web

    n, shown = _whole(request.match_info.get(key, ""), "table")
    if not 0 <= n <= MAX_BOARD:
        raise web.HTTPNotFound(text=f"There is no table {shown}: tables are numbered 0 to {MAX_BOARD}.")
    return n


def round_number(request: Any, config: EventConfig | None, key: str = "round") -> int | None:
    """The round number in ``request``'s path at ``key``, else in its query (``?round=R``; None when not given):
    one of the event's rounds.

    Raises:
        aiohttp.web.HTTPBadRequest: it is no whole number (an empty ``?round=`` too).
        aiohttp.web.HTTPNotFound: the event has no such round.
    """
    from aiohttp import web

    if key in request.match_info:
        text = request.match_info[key]
    elif key in request.query:
        text = request.query[key]
    else:
        return None
    n, shown = _whole(text, "round")
    if config is None:
        raise web.HTTPNotFound(text=f"There is no round {shown}: the desk was started without an event's rounds.")
    if not 1 <= n <= config.rounds:
        raise web.HTTPNotFound(text=f"There is no round {shown}: the event's rounds are 1 to {config.rounds}.")
    return n


def _whole(text: str, what: str) -> tuple[int, str]:
    """``text`` as a whole number and as it is shown in a sentence (at most 40 characters)."""
    from aiohttp import web

    shown = text if len(text) <= 40 else text[:40] + "..."
    if not _WHOLE.fullmatch(text):
        raise web.HTTPBadRequest(text=f"The {what} must be a whole number, not {shown!r}.")
    if len(text.lstrip("-")) > 18:   # beyond every table and round (and int()'s limit on digits, 4300)
        return (-1 if text.startswith("-") else 10**18), shown
    return int(text), shown

"""The tournament director's requests at the desk (pairing a board, taking another version of a game): each is a
POST of a JSON object carrying the event's ``director_pin``, checked the same way for every one of them.

The desk has no login and no session: whoever gives the director PIN is the director, and anyone else - a player
or a broadcaster watching the page, a kiosk - is refused with a sentence. Nothing rides on a browser's cookies, so
a page of another site cannot act with the director's rights; it cannot even send such a request without the
browser asking the desk first, because the body must be sent as ``application/json`` (an HTML form can send only
other kinds), and the desk answers no such question. Wrong PINs slow their address down
(:mod:`kiosk.desk.pin_wait`). aiohttp is imported when a refusal is made, as in the server.
"""

from __future__ import annotations

import hmac
from typing import Any

from kiosk.desk.event import EventConfig, shown
from kiosk.desk.pin_wait import PinWaits


async def director_request(request: Any, config: EventConfig | None, pin_waits: PinWaits, *, action: str,
                           fields: str) -> dict[str, Any]:
    """The JSON object of the director's POST ``request``, once its ``pin`` is the event's ``director_pin``.
    ``action``: what the request does, to end a sentence ("pair boards"); ``fields``: the object's fields as a
    refusal names them (``'{"pin", "round", "board", "players"}'``).

    Raises (each with a sentence, nothing changed):
        aiohttp.web.HTTPNotFound: the event gives no ``director_pin``.
        aiohttp.web.HTTPUnsupportedMediaType: the body is not sent as ``application/json``.
        aiohttp.web.HTTPBadRequest: the body is not JSON, or no JSON object.
        aiohttp.web.HTTPTooManyRequests: the address gave too many wrong PINs lately (the right PIN waits too).
        aiohttp.web.HTTPForbidden: no PIN, or a wrong one.
    """
    from aiohttp import web

    if config is None or not config.director_pin:
        raise web.HTTPNotFound(text=f"The desk lets the director {action} only when event.toml gives a director_pin.")
    if request.content_type != "application/json":
        raise web.HTTPUnsupportedMediaType(text="The request must be sent as JSON (Content-Type: application/json), "
                                                f"not as {request.content_type}.")
    try:
        data = await request.json()
    except (ValueError, RecursionError):   # RecursionError: arrays nested thousands deep
        raise web.HTTPBadRequest(text="The request was not JSON.") from None
    address = request.remote or "?"
    wait = pin_waits.wait_s(address)
    if wait:   # the right PIN too: guessing must not go faster by trying it during the wait
        raise web.HTTPTooManyRequests(text=f"Too many wrong director PINs: wait {wait} s.",
                                      headers={"Retry-After": str(wait)})
    if not isinstance(data, dict):
        raise web.HTTPBadRequest(text=f"The request must be a JSON object: {fields}.")
    pin = data.get("pin")
    if pin is None or pin == "":
        raise web.HTTPForbidden(text=f"Only the tournament director can {action}: the request gave no director PIN.")
    if not isinstance(pin, str) or not hmac.compare_digest(pin.encode(), config.director_pin.encode()):
        pin_waits.wrong(address)
        raise web.HTTPForbidden(text="Wrong director PIN.")
    pin_waits.right(address)
    return data


def whole_field(data: dict[str, Any], key: str, what: str) -> int:
    """``data[key]``, a whole number (``what`` names it in a refusal: "the round number"; ``true`` is none).
    Raises ``aiohttp.web.HTTPBadRequest`` with a sentence naming the field."""
    from aiohttp import web

    value = data.get(key)
    if value is None:
        raise web.HTTPBadRequest(text=f'The request lacks "{key}": {what}, a whole number.')
    if not isinstance(value, int) or isinstance(value, bool):
        raise web.HTTPBadRequest(text=f'"{key}" must be {what}, a whole number, not {shown(value)}.')
    return value


def text_field(data: dict[str, Any], key: str, what: str, longest: int) -> str:
    """``data[key]``, a text of 1 to ``longest`` characters (``what`` names it in a refusal: "the game's id").
    Raises ``aiohttp.web.HTTPBadRequest`` with a sentence naming the field."""
    from aiohttp import web

    value = data.get(key)
    if value is None:
        raise web.HTTPBadRequest(text=f'The request lacks "{key}": {what}.')
    if not isinstance(value, str) or not 1 <= len(value) <= longest:
        raise web.HTTPBadRequest(text=f'"{key}" must be {what}, a text of 1 to {longest} characters, not '
                                      f"{shown(value)}.")
    return value

"""The id of a game: the one rule that names a recorded game, and the characters an id may hold.

A game's id goes into the stream's messages (``game_id``), the desk's results and exports, and file names (the
records folder's ``{game_id}.gcg``, the desk's ``/games/N/{game_id}.gcg``, ``round{R}/board{N}-{game_id}.gcg``
in a zip). A tournament director expects one game to have one id everywhere, so a GCG record's id is made by
:func:`record_game_id` alone: :class:`~kiosk.referee.records.RefereeEvents` (``kiosk replay --preset``, the
referee's events of a record, ``events_from_gcg``) and ``kiosk stream-game`` (:mod:`kiosk.stream.publish`,
then the desk) both call it. Pure: no I/O.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from kiosk.rules.gcg import GcgGame

_SAFE = re.compile(r"[^A-Za-z0-9._-]+")
MAX_NAMED = 64        #: characters of a record's own ``#id`` kept in its game id
KIOSK_AUTHORITY = "kiosk"   #: the kiosk's GCG export writes ``#id kiosk <game_id>``


def safe_name(text: str, fallback: str = "game") -> str:
    """``text`` as a file name part: letters, digits, ``._-`` only (others become ``_``), no ``.`` or ``_`` at
    either end (so never ``..``), at most 80 chars; ``fallback`` when nothing is left."""
    s = _SAFE.sub("_", text).strip("._")[:80]
    return s or fallback


def record_game_id(game: GcgGame) -> str:
    """The id of the game a GCG record holds, the same wherever it is asked for (see module doc).

    * The record's own ``#id`` (its last one) when it names the game, as a server or a tournament program does:
      ``#id io.woogles 7xYz`` -> ``io.woogles_7xYz``; spaces become ``_``, every character but letters, digits
      and ``._-`` becomes ``_``, ``.`` and ``_`` are taken off both ends (``#id ../../etc passwd`` ->
      ``etc_passwd``), at most 64 characters. The kiosk's own export, ``#id kiosk <game_id>``, names the game
      it came from: ``<game_id>``, so a record downloaded from the desk or the records folder and streamed
      again is the same game.
    * Else (no ``#id``, an empty one, or one of nothing but such characters: ``#id ..``) the players' nicks and
      12 hex digits of a SHA-1 of what the record says happened (players, and each line's player, move, score
      and total; not its notes, line numbers, line ends or file name): ``doug-emely-589d5bf73a8f``.

    The same record gets the same id every time, whatever its file is called (the desk takes it again as
    nothing new); two different games without ``#id`` get two ids. Two different records under one ``#id`` are
    one game to the desk, which keeps the first and the second beside it as the game's other version, for the
    director to take (``docs/desk.md``). An id never holds a character outside ``A-Za-z0-9._-``, so it is safe
    in a file name.
    """
    named = game.pragmas.get("id")
    text = named[-1].strip() if named else ""
    words = text.split(None, 1)
    if len(words) == 2 and words[0] == KIOSK_AUTHORITY:
        text = words[1]
    own = safe_name(text.replace(" ", "_")[:MAX_NAMED], "")
    if own:
        return own
    content: list[Any] = [[[pl.nick, pl.name] for pl in game.players]]
    for ev in game.events:
        content.append([ev.kind.value, ev.nick, str(ev.coordinate or ""), ev.word, list(ev.through), ev.tiles,
                        ev.count, ev.score, ev.cumulative])
    digest = hashlib.sha1(json.dumps(content, ensure_ascii=False).encode()).hexdigest()[:12]
    return "-".join([safe_name(pl.nick, f"p{i + 1}")[:16] for i, pl in enumerate(game.players)] + [digest])

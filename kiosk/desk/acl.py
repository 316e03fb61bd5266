"""Mosquitto access control for an event: every kiosk writes only its own board's topics, the desk reads
everything, the public reads only the delayed channel. Used by the tests and the desk benchmark; the same
files, written out, are the example in ``docs/mosquitto/``.

* :func:`acl_text` - the ``acl_file``: ``user kiosk{N}`` may write ``{root}/board/{N}/#`` and
  ``{root}/judge/board/{N}/#`` (its flags included); ``user desk`` reads ``{root}/#``; ``user public`` reads
  only the delayed channel ``{root}/board/+/event/#``, ``snapshot``, ``tick`` and ``status``.
* :func:`password_file` - hashed passwords with Mosquitto's own ``mosquitto_passwd``.
* :func:`broker_lines` - the ``mosquitto.conf`` lines switching both on, anonymous clients off.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterable, Mapping
from pathlib import Path

from kiosk.files import write_atomic


def kiosk_user(board: int) -> str:
    """The broker user name of the kiosk at ``board``."""
    return f"kiosk{board}"


HEADER = """\
# Mosquitto ACL for a tournament bus (acl_file): the kiosks, the desk and the public on one broker. Topic root
# {root}, e.g. stream.mqtt_root = "scrabble/nationals-2026" (two levels). Made by kiosk.desk.acl.acl_text;
# tested by tests/stream/test_stream_acl.py and tests/desk/test_desk_docs.py against a real mosquitto.
#
#   kiosks (user kioskN)  write their own board's topics only: the public channel {root}/board/N/...
#                         (events, snapshot, tick, status with the Last Will) and the live judge channel
#                         {root}/judge/board/N/... (events, snapshot, tick, flags)
#   desk (user desk)      reads everything, writes nothing
#   public (user public)  a shared viewer login: reads only the delayed public channel, never judge/...
#   anyone else           nothing (allow_anonymous false in mosquitto.conf)
#
# A "user kioskN" block per table. Lines before the first "user" would apply to anonymous clients: keep none.
"""
PUBLIC_TOPICS = ("event/#", "snapshot", "tick", "status")  #: what the public reads under {root}/board/+/


def acl_text(root: str, boards: Iterable[int], *, desk: str = "desk", public: str = "public") -> str:
    """The ACL file text for the given boards (see module doc); ``root`` may hold a ``+`` level (the
    shipped ``docs/mosquitto/acl`` is ``acl_text("scrabble/+", [1, 2])``)."""
    lines = [HEADER.format(root=root), f"user {desk}", f"topic read {root}/#", "", f"user {public}",
             *(f"topic read {root}/board/+/{t}" for t in PUBLIC_TOPICS), ""]
    for b in sorted(set(boards)):
        lines += [f"user {kiosk_user(b)}", f"topic write {root}/board/{b}/#", f"topic write {root}/judge/board/{b}/#",
                  ""]
    return "\n".join(lines)


def password_file(path: str | Path, users: Mapping[str, str]) -> Path:
    """Write a Mosquitto password file (hashed by ``mosquitto_passwd``) for ``users`` (name -> password).
    Raises ``RuntimeError`` when ``mosquitto_passwd`` is missing or fails."""
    exe = shutil.which("mosquitto_passwd")
    if exe is None:
        raise RuntimeError("mosquitto_passwd is not installed (Debian package 'mosquitto')")
    path = Path(path)
    # owner-only from the start: the passwords stand in clear text until mosquitto_passwd hashes them
    write_atomic(path, "".join(f"{u}:{p}\n" for u, p in users.items()), mode=0o600)
    r = subprocess.run([exe, "-U", str(path)], capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        raise RuntimeError(f"mosquitto_passwd -U {path}: {r.stderr.strip() or r.returncode}")
    return path


def broker_lines(password_path: str | Path, acl_path: str | Path) -> tuple[str, ...]:
    """``mosquitto.conf`` lines: no anonymous clients, the password file and the ACL file."""
    return ("allow_anonymous false", f"password_file {password_path}", f"acl_file {acl_path}")

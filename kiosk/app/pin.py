"""The judge's PIN: checked in constant time, wrong entries slowed down per screen, logged, and remembered.

A player must not be able to turn the PIN against the judge: wrong entries slow down only the screen they
were typed on, and only for seconds (after :attr:`PinGate.free_tries` wrong entries in a row there, each
further one waits ``base_ms`` doubling up to ``max_lockout_ms``, 8 s by default), and the tournament
director's recovery code (``table.director_code`` in the config) opens the gate at once and clears every
wait. The waits and counts are kept in a small JSON file (``state_path``, beside the journal) so a restart
does not hand out fresh tries.

PINs are 4-8 ASCII digits (the pad takes 8); the recovery code 6-8 ASCII digits, not the PIN
(:mod:`kiosk.settings.pins`, the rule of the config file and the desk's event file too).
"""

from __future__ import annotations

import hmac
import json
import logging
from dataclasses import dataclass
from pathlib import Path

from kiosk.control.words import counted
from kiosk.files import check_regular_file, replacing
from kiosk.settings.pins import check_pin, check_recovery_code

log = logging.getLogger("kiosk.judge")

def pin_state_path(journal: Path) -> Path:
    """Where a kiosk keeps its PIN waits: beside its journal (``<journal>.pin.json``)."""
    return journal.with_name(journal.name + ".pin.json")


@dataclass
class _Screen:
    wrong_in_row: int = 0
    locked_until: int = 0


class PinGate:
    """Guards judge actions.

    Args:
        pin: the judge's PIN (4-8 ASCII digits).
        recovery_code: the director's code (6-8 ASCII digits), or None: opens the gate and clears every wait.
        state_path: where the waits and counts are kept across restarts (None: in memory only).
        free_tries: wrong entries in a row on one screen before it waits.
        base_ms / max_lockout_ms: the first wait and the cap (ms); the wait doubles with each further wrong entry.

    Every wrong entry is logged (logger ``kiosk.judge``) and counted in :attr:`wrong_total`.

    Raises:
        ValueError: a PIN or recovery code of the wrong form (the message names it).
    """

    def __init__(self, pin: str, *, recovery_code: str | None = None, state_path: str | Path | None = None,
                 free_tries: int = 3, base_ms: int = 1_000, max_lockout_ms: int = 8_000) -> None:
        self._pin = check_pin(pin)
        self._recovery = check_recovery_code(recovery_code, pin) if recovery_code is not None else None
        self.free_tries = free_tries
        self.base_ms = base_ms
        self.max_lockout_ms = max_lockout_ms
        self.state_path = Path(state_path) if state_path is not None else None
        self.wrong_total = 0
        self._screens: dict[str, _Screen] = {}
        self._load()

    # ------------------------------------------------------------------------------------- persistence
    def _load(self) -> None:
        if self.state_path is None or not self.state_path.exists():
            return
        try:
            # (a FIFO planted there would block the start: only a regular file is read)
            data = json.loads(check_regular_file(self.state_path, "judge PIN state").read_text(encoding="utf-8"))
            self.wrong_total = int(data.get("wrong_total", 0))
            for name, s in dict(data.get("screens", {})).items():
                self._screens[str(name)] = _Screen(int(s["wrong_in_row"]), int(s["locked_until"]))
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            log.error("%s: judge PIN state unreadable (%s): the waits start afresh", self.state_path, exc)
            self._screens = {}

    def _save(self) -> None:
        if self.state_path is None:
            return
        data = {"wrong_total": self.wrong_total,
                "screens": {k: {"wrong_in_row": s.wrong_in_row, "locked_until": s.locked_until}
                            for k, s in self._screens.items()}}
        try:
            with replacing(self.state_path) as tmp:    # never a device or FIFO planted at the path
                Path(tmp).write_text(json.dumps(data), encoding="utf-8")
        except OSError as exc:  # the gate still works in memory; the loss is only across a restart
            log.error("%s: cannot keep the judge PIN state: %s", self.state_path, exc.strerror)

    # ------------------------------------------------------------------------------------- checks
    def _screen(self, where: str) -> _Screen:
        return self._screens.setdefault(where, _Screen())

    @property
    def wrong_in_row(self) -> int:
        """The most wrong entries in a row on any one screen."""
        return max((s.wrong_in_row for s in self._screens.values()), default=0)

    def locked(self, now_ms: int, where: str = "") -> int:
        """Milliseconds until ``where`` accepts PINs again (0: open); never more than ``max_lockout_ms``, even
        if the clock went back."""
        s = self._screens.get(where or "judge")
        if s is None:
            return 0
        return max(0, min(self.max_lockout_ms, s.locked_until - now_ms))

    def check(self, entered: str, now_ms: int, where: str = "") -> tuple[bool, str]:
        """(accepted, message for the screen) for an entry on screen ``where``.

        The director's recovery code is always accepted and clears every wait. A waiting screen refuses even
        the right PIN, for at most ``max_lockout_ms``; other screens are not affected.
        """
        where = where or "judge"
        if self._recovery is not None and hmac.compare_digest(entered.encode(), self._recovery.encode()):
            self._screens = {}
            self._save()
            log.warning("director's recovery code used (%s): every PIN wait cleared", where)
            return True, "The director's code is accepted: every PIN wait is cleared."
        s = self._screen(where)
        wait = self.locked(now_ms, where)
        if wait:
            left_s = -(-wait // 1000)   # whole seconds, rounded up: 8000 ms is 8 s (it said 9), 7001 ms is 8 s
            log.warning("judge PIN entry refused while waiting (%s), %d s left", where, left_s)
            return False, f"Too many wrong PINs. Wait {counted(left_s, 'second')}, then try again."
        if hmac.compare_digest(entered.encode(), self._pin.encode()):
            s.wrong_in_row, s.locked_until = 0, 0
            self._save()
            return True, "The PIN is accepted."
        s.wrong_in_row += 1
        self.wrong_total += 1
        log.warning("wrong judge PIN (%s), %d in a row", where, s.wrong_in_row)
        if s.wrong_in_row >= self.free_tries:
            extra = s.wrong_in_row - self.free_tries
            ms = min(self.max_lockout_ms, self.base_ms * (2 ** min(extra, 30)))
            s.locked_until = now_ms + ms
            self._save()
            return False, f"Wrong PIN. Wait {counted(-(-ms // 1000), 'second')}, then try again."
        self._save()
        n = self.free_tries - s.wrong_in_row
        return False, f"Wrong PIN. You have {counted(n, 'more try', 'more tries')}."

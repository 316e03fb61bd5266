"""The judge's PIN: checked in constant time, wrong entries rate-limited and logged."""

from __future__ import annotations

import hmac
import logging

log = logging.getLogger("kiosk.judge")


class PinGate:
    """Guards judge actions.

    ``pin``: the judge's PIN (digits). After ``free_tries`` wrong entries in a row, further entries are refused
    for ``lockout_ms`` (doubling with each further wrong entry, at most ``max_lockout_ms``). Every wrong entry
    is logged (logger ``kiosk.judge``) and counted in :attr:`wrong_total`.
    """

    def __init__(self, pin: str, *, free_tries: int = 3, lockout_ms: int = 30_000, max_lockout_ms: int = 600_000) -> None:
        if not pin or not pin.isdigit():
            raise ValueError("judge PIN: expected digits only, e.g. '2468'")
        self._pin = pin
        self.free_tries = free_tries
        self.lockout_ms = lockout_ms
        self.max_lockout_ms = max_lockout_ms
        self.wrong_in_row = 0
        self.wrong_total = 0
        self.locked_until = 0

    def locked(self, now_ms: int) -> int:
        """Milliseconds until PINs are accepted again (0: open)."""
        return max(0, self.locked_until - now_ms)

    def check(self, entered: str, now_ms: int, where: str = "") -> tuple[bool, str]:
        """(accepted, message for the screen). A locked gate refuses even the right PIN."""
        wait = self.locked(now_ms)
        if wait:
            log.warning("judge PIN entry refused while locked (%s), %d s left", where or "judge", wait // 1000 + 1)
            return False, f"too many wrong PINs: wait {wait // 1000 + 1} s"
        if hmac.compare_digest(entered.encode(), self._pin.encode()):
            self.wrong_in_row = 0
            return True, "PIN accepted"
        self.wrong_in_row += 1
        self.wrong_total += 1
        log.warning("wrong judge PIN (%s), %d in a row", where or "judge", self.wrong_in_row)
        if self.wrong_in_row >= self.free_tries:
            extra = self.wrong_in_row - self.free_tries
            ms = min(self.max_lockout_ms, self.lockout_ms * (2 ** extra))
            self.locked_until = now_ms + ms
            return False, f"wrong PIN: locked for {ms // 1000} s"
        return False, f"wrong PIN ({self.free_tries - self.wrong_in_row} tries left)"

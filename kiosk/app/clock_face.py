"""The clock displays kept live: :class:`LiveClockFace` writes the referee's clocks to a ClockDisplay whenever
what it shows changes (a new second, the flag, overtime), and only then.

``kiosk run`` calls :meth:`LiveClockFace.update` on every turn of its loop (about 30 a second), so a face is
at most one loop turn behind the referee; a running clock costs one changed face a second (on the HT16K33:
one RAM block and one display-setup byte, 2 bus writes a second).
"""

from __future__ import annotations

import logging
from typing import Any

from kiosk.devices.display import ClockDisplay, faces
from kiosk.devices.sevenseg import ClockFace

log = logging.getLogger("kiosk.run")


class LiveClockFace:
    """Keeps ``display`` showing players 0 (left) and 1 (right) of the game; ``writes`` counts the
    ``show`` calls made (each one a change of at least one face)."""

    def __init__(self, display: ClockDisplay) -> None:
        self.display = display
        self.shown: tuple[ClockFace, ClockFace] | None = None
        self.writes = 0

    def update(self, clocks: Any) -> bool:
        """Show ``clocks``' (a Kiosk: ``state.players``, ``remaining_ms(player)``) times if a face changed;
        returns whether the display was written. Display trouble is logged, never raised (the display is a
        nicety: the referee goes on without it)."""
        if len(clocks.state.players) < 2:
            return False
        rem = [clocks.remaining_ms(p) for p in (0, 1)]
        if rem[0] is None or rem[1] is None:
            return False
        args = (abs(rem[0]), abs(rem[1]), rem[0] < 0, rem[1] < 0)
        want = faces(*args)
        if want == self.shown:
            return False
        try:
            self.display.show(*args)
        except Exception:  # the display is a nicety: never stop the referee for it
            log.exception("clock display failed")
            return False
        self.shown = want
        self.writes += 1
        return True

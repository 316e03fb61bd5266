"""The table's flags for the tournament desk: judge called, each device's health, journal trouble.

``kiosk run`` calls :meth:`TableFlags.update` on every pass of its loop; the MQTT publisher sends the flags
(retained, QoS 1, judge channel only: ``{root}/judge/board/{N}/flags``, docs/desk.md) only when they change.
"""

from __future__ import annotations

from typing import Any, Protocol

from kiosk.app.kiosk import Kiosk
from kiosk.referee.kinds import PromptKind

#: the referee's prompts that ask for the judge: a challenge to rule on, the clock stopped (judge call, recount)
JUDGE_PROMPTS = frozenset({PromptKind.CHALLENGE_RULING, PromptKind.CLOCK_NEUTRALISED})


class FlagsSink(Protocol):
    """Where flags go (:meth:`kiosk.stream.mqtt.MqttPublisher.set_flags`)."""

    def set_flags(self, judge_called: bool, devices: dict[str, str], journal: str | None) -> bool: ...


class TableFlags:
    """Reads the flags off the kiosk and its devices and hands a change to ``sink``. The judge is called while
    the kiosk's screen asks for the judge (``view.needs_judge``) or a referee prompt does (:data:`JUDGE_PROMPTS`).

    ``recovered``: the salvage note of a game resumed from a damaged journal (None: none); it stays the
    journal flag while that game is the session's game. A journal that cannot be written (the game paused: its
    sentence, :func:`kiosk.store.pause_sentence`) takes precedence.
    """

    def __init__(self, sink: FlagsSink, kiosk: Kiosk, devices: Any, recovered: str | None = None) -> None:
        self.sink, self.kiosk, self.devices = sink, kiosk, devices
        self._recovered = (kiosk.session.game, recovered) if recovered else None

    def current(self) -> tuple[bool, dict[str, str], str | None]:
        """(judge called, device name -> "ok" | "degraded" | "down" | "absent", journal sentence or None)."""
        session = self.kiosk.session
        journal = None
        if session.paused:
            journal = session.pause_reason
        elif self._recovered is not None and session.game is self._recovered[0]:
            journal = self._recovered[1]
        devices = {h.device: h.state for h in self.devices.health()}
        called = self.kiosk.view.needs_judge or any(p.kind in JUDGE_PROMPTS for p in self.kiosk.prompts())
        return bool(called), devices, journal

    def update(self) -> bool:
        """Hand the current flags to the sink; True when they changed and were queued."""
        return self.sink.set_flags(*self.current())

"""What the device check saw of each device's health during its watch, said in sentences.

The check (:mod:`kiosk.devices.check`) looks at every device's health many times a second and judges each
device by its state at the end of the watch: it works when it is "ok", or "degraded" as its report of an
outage it came back from (the serial clock link reports so for 10 s after one: working, the outage in its
detail); "down", or "degraded" by errors of its own (I2C errors retried in its last update, a GPIO pin that
could not be read), it does not. What happened on the way is said apart, so a device lost for a while that
came back is "working; lost once for 2.3 s during the check", never "not working".
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kiosk.devices.health import DeviceHealth


@dataclass
class Course:
    """One device's health through the watch (ms on the kiosk's monotonic clock)."""

    device: str
    backend: str
    start_ms: int
    last: DeviceHealth | None = None
    last_ms: int = 0
    worked: bool = False                 # seen working (ok or degraded) at some look
    down_detail: str = ""                # why it did not work before it first worked
    came_up: tuple[int, str] | None = None   # (ms into the watch when it first worked, why it did not before)
    outages: list[tuple[int, str]] = field(default_factory=list)   # (ms out, first detail) of outages it came back from
    lost: tuple[int, str] | None = None   # (since when, first detail) of the outage it is in now
    troubles: list[str] = field(default_factory=list)   # the first detail of each time it was degraded
    recovered: bool = False              # "degraded" as its report of the outage it came back from

    @property
    def works(self) -> bool:
        """Whether it works at the end (its last look): "ok", or "degraded" right after an outage."""
        h = self.last
        return h is not None and (h.state == "ok" or (h.state == "degraded" and self.recovered))

    def look(self, h: DeviceHealth, now_ms: int) -> None:
        prev = self.last
        changed = prev is None or prev.state != h.state
        at = h.since_ms if changed and prev is not None and self.last_ms <= h.since_ms <= now_ms else now_ms
        self.last, self.last_ms = h, now_ms
        if not changed or h.state == "absent":
            return
        self.recovered = False
        if h.state == "down":
            if self.worked:
                self.lost = (at, h.detail)
            elif not self.down_detail:
                self.down_detail = h.detail
            return
        back = self.lost is not None      # a degraded state right after an outage is its recovery, no new trouble
        if self.lost is not None:
            self.outages.append((at - self.lost[0], self.lost[1]))
            self.lost = None
        elif not self.worked and prev is not None and prev.state == "down":
            self.came_up = (at - self.start_ms, self.down_detail)
        self.worked = True
        if h.state == "degraded":
            self.recovered = back
            if not back:
                self.troubles.append(h.detail)

    def story(self, end_ms: int, plural: bool) -> str:
        """What happened to it during the watch, as the rest of a sentence ("it was lost once for 2.3 s during
        the check (why)"), or "" when nothing did."""
        it, was = ("they", "were") if plural else ("it", "was")
        parts = []
        if self.came_up is not None:
            parts.append(f"{it} started working {_s(self.came_up[0])} into the check (before that: {self.came_up[1]})")
        if len(self.outages) == 1:
            ms, why = self.outages[0]
            parts.append(f"{it} {was} lost once for {_s(ms)} during the check ({why})")
        elif self.outages:
            total = sum(ms for ms, _ in self.outages)
            parts.append(f"{it} {was} lost {len(self.outages)} times during the check, for {_s(total)} in all "
                         f"(the first time: {self.outages[0][1]})")
        if len(self.troubles) == 1:
            parts.append(f"{it} had trouble once during the check ({self.troubles[0]})")
        elif self.troubles:
            parts.append(f"{it} had trouble {len(self.troubles)} times during the check "
                         f"(the first time: {self.troubles[0]})")
        if self.lost is not None:
            parts.append(f"{it} stopped working {_s(end_ms - self.lost[0])} before the check ended ({self.lost[1]})")
        return ", and ".join(parts)


def _s(ms: int) -> str:
    return f"{max(ms, 0) / 1000:.1f} s"


class HealthWatch:
    """Every device's :class:`Course`; :meth:`look` at each round of the watch, :meth:`sentences` at its end."""

    def __init__(self, start_ms: int) -> None:
        self.start_ms = start_ms
        self.courses: dict[tuple[str, str], Course] = {}

    def look(self, healths: list[DeviceHealth], now_ms: int) -> None:
        for h in healths:
            key = (h.device, h.backend)
            if key not in self.courses:
                self.courses[key] = Course(h.device, h.backend, self.start_ms)
            self.courses[key].look(h, now_ms)

    def failing(self, healths: list[DeviceHealth]) -> list[DeviceHealth]:
        """Those of ``healths`` (the last look) whose device does not work at the end ("absent" is no failure)."""
        return [h for h in healths if h.state != "absent" and not self.courses[(h.device, h.backend)].works]

    def sentences(self, end_ms: int) -> list[str]:
        """One sentence per story: the devices it happened to (those of one serial link share theirs), whether
        they work at the end, and what happened during the watch."""
        groups: dict[tuple[bool, str], list[Course]] = {}
        for c in self.courses.values():
            if c.last is None or c.last.state == "absent" or not c.story(end_ms, False):
                continue
            groups.setdefault((c.works, c.story(end_ms, False)), []).append(c)
        out = []
        for (works, _), courses in groups.items():
            names = [f"{c.device} ({c.backend})" for c in courses]
            plural = len(names) > 1 or courses[0].device == "buttons"
            who = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
            verb = ("work" if plural else "works") if works else ("do not work" if plural else "does not work")
            out.append(f"{who} {verb}; {courses[0].story(end_ms, plural)}.")
        return out

"""Button debounce shared by the firmware (MicroPython) and the Pi's GPIO backend (CPython).

A level change counts only once it has held for ``debounce_ms``; the press is timestamped at its *first*
edge, so debounce adds latency but no error to the clock. Chatter shorter than ``debounce_ms`` does not restart
the timestamp, a glitch shorter than ``debounce_ms`` is no press, and a button held down gives one press.

The debounce is bounded (:func:`debounce_problem`): under ``DEBOUNCE_MIN_MS`` a switch's contact bounce counts as
presses (the pause button would pause and resume at once); over ``DEBOUNCE_MAX_MS`` a quick tap on the clock, whose
contact must hold that long to count, may be dropped. The firmware and the kiosk's default is ``DEBOUNCE_MS``.
"""

DEBOUNCE_MS = 20       # the firmware's and the GPIO backend's default (ms)
DEBOUNCE_MIN_MS = 2    # a switch's contacts bounce for a few ms: below this each bounce may count as a press
DEBOUNCE_MAX_MS = 50   # a press must hold this long to count: a quick tap on a clock button must not be dropped


def debounce_problem(debounce_ms):
    """Why ``debounce_ms`` cannot be a button's debounce, as the end of a sentence naming the setting ("must be at
    least 2 ms: ..."); None when it can."""
    allowed = "allowed " + str(DEBOUNCE_MIN_MS) + ".." + str(DEBOUNCE_MAX_MS) + " ms"
    if debounce_ms < DEBOUNCE_MIN_MS:
        return ("must be at least " + str(DEBOUNCE_MIN_MS) + " ms (" + allowed + "): a switch's contacts bounce "
                "for a few ms, and each bounce would count as a press (the pause button would pause and resume at "
                "once); got " + str(debounce_ms) + " ms")
    if debounce_ms > DEBOUNCE_MAX_MS:
        return ("must be at most " + str(DEBOUNCE_MAX_MS) + " ms (" + allowed + "): a press counts only once it "
                "has held that long, and a quick tap on the clock would be dropped; got " + str(debounce_ms) + " ms")
    return None


class Debouncer:
    """Debounces one button. Call ``update(pressed, now_ms)`` on every edge and on every poll.

    Returns the press time (ms, the caller's clock) when a press is confirmed, else None. Releases are
    confirmed silently. ``pressed`` is the electrical level already mapped to "button down".
    """

    def __init__(self, debounce_ms=DEBOUNCE_MS, pressed=False):
        if debounce_ms < 0:
            raise ValueError("debounce_ms must be >= 0")
        self.debounce_ms = debounce_ms
        self.stable = pressed
        self.first_edge = None    # first departure from the stable level in the current burst
        self.change_since = None  # start of the current run at the non-stable level
        self.back_since = None    # start of the current run back at the stable level
        self.rejected = 0         # bursts that never held long enough

    def update(self, pressed, now_ms):
        pressed = bool(pressed)
        if pressed == self.stable and self.change_since is not None and now_ms - self.change_since >= self.debounce_ms:
            # the other level held long enough but nobody looked in time (edge-driven callers): it counts,
            # and this call starts the run back
            edge = self.first_edge
            self.stable = not pressed
            self.first_edge = now_ms
            self.change_since = now_ms
            self.back_since = None
            return edge if self.stable else None
        if pressed == self.stable:
            if self.change_since is not None:
                self.change_since = None
                self.back_since = now_ms
            if self.back_since is not None and now_ms - self.back_since >= self.debounce_ms:
                self.back_since = None
                self.first_edge = None
                self.rejected += 1
            return None
        if self.first_edge is None:
            self.first_edge = now_ms
        self.back_since = None
        if self.change_since is None:
            self.change_since = now_ms
        if now_ms - self.change_since < self.debounce_ms:
            return None
        self.stable = pressed
        edge = self.first_edge
        self.first_edge = None
        self.change_since = None
        return edge if pressed else None

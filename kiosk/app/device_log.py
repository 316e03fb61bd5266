"""The device problems the touchscreen shows, logged as they come and go (``kiosk run``, with or without a
screen: a headless table has only its log to tell the technician that the camera is down).

The sentences are the screen's (:func:`kiosk.control.words.device_problems`): a problem is logged (warning) when
it appears or its sentence changes, with the device's backend and its own detail beside it, and its clearing
(info, :func:`kiosk.control.words.device_cleared`) when it goes; a problem that lasts is logged once, not at
each look at the devices' health.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from kiosk.control.words import device_cleared, device_problems
from kiosk.devices.health import DeviceHealth

log = logging.getLogger("kiosk.devices")


class DeviceLog:
    """Keeps the device problems last shown and logs each change (see the module docstring)."""

    def __init__(self, logger: logging.Logger = log) -> None:
        self.log = logger
        self._shown: dict[str, str] = {}

    def update(self, healths: Iterable[DeviceHealth]) -> tuple[str, ...]:
        """Log what changed since the last call; returns the sentences for the screen (``view.devices``)."""
        healths = list(healths)
        now = device_problems(healths)
        by_device = {h.device: h for h in healths}
        for device, sentence in now.items():
            if self._shown.get(device) != sentence:
                h = by_device[device]
                self.log.warning("%s (%s%s)", sentence, h.backend, f": {h.detail}" if h.detail else "")
        for device in self._shown.keys() - now.keys():
            self.log.info("%s", device_cleared(device))
        self._shown = now
        return tuple(now.values())

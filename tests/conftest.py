"""Suite-wide settings and fixtures: no real screen or sound, compiled lexicons in a per-session temporary
cache, and a local MQTT broker. Plain test doubles (the test clock, the kiosk builder) are in
``tests/common_fixtures.py``."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from kiosk.stream.broker import LocalBroker

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
# one thread a worker: pytest-xdist runs more workers than there are cores (./run), and the thread pools of numpy's OpenBLAS and of OpenCV
# would each spread over every core and spin waiting there; set before any test imports numpy or OpenCV, and
# inherited by the processes the tests start (README, "Testing")
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "OPENCV_FOR_THREADS_NUM"):
    os.environ.setdefault(_var, "1")
# the suite draws the Debian faces only, never a developer's fetched Google Fonts faces (scripts/fetch_fonts.py),
# so that it reads the same frames here as in CI
os.environ["KIOSK_FONT_DIR"] = os.path.join(os.path.dirname(__file__), "no-fetched-fonts")


@pytest.fixture(autouse=True)
def _kiosk_cache(tmp_path_factory, monkeypatch):
    """Compiled lexicons go to a per-session temporary cache, not the user's home."""
    monkeypatch.setenv("KIOSK_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "kiosk-cache"))


@pytest.fixture
def start_broker() -> Iterator[Callable[..., LocalBroker]]:
    """``start_broker(*config_lines)`` starts a Mosquitto broker of its own on a free port of 127.0.0.1 with
    those extra ``mosquitto.conf`` lines (ACL, password file, ...); all are stopped after the test. Fails
    (never skips) when mosquitto is not installed."""
    from kiosk.stream.broker import LocalBroker, mosquitto_path

    if mosquitto_path() is None:
        pytest.fail("mosquitto is not installed: install the Debian packages in scripts/system-packages.txt")
    started: list[LocalBroker] = []

    def start(*config_lines: str) -> LocalBroker:
        b = LocalBroker(extra=config_lines)
        started.append(b)
        return b.start()

    yield start
    for b in started:
        b.close()


@pytest.fixture
def broker(start_broker: Callable[..., LocalBroker]) -> LocalBroker:
    """A Mosquitto broker of its own with the default configuration (see :func:`start_broker`)."""
    return start_broker()

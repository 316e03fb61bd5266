"""Where the shared real data is (``../shared`` beside the project) and a skip marker for when it is absent.

Import as ``from shared_data import SHARED, needs_shared`` (``tests/`` is on ``sys.path`` through its conftest).
"""

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = (ROOT / ".." / "shared").resolve()
HAVE_SHARED = SHARED.is_dir()

needs_shared = pytest.mark.skipif(not HAVE_SHARED, reason=f"../shared is absent ({SHARED}): real-data test skipped")

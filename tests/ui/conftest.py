"""pytest fixtures of the UI tests that a test asks for by name (the builders and the autouse display fixture are
in ``ui_fixtures.py``)."""

from __future__ import annotations

import pytest

from kiosk.ui.widgets import Canvas


@pytest.fixture
def drawn(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every text the screens draw, in order (``Canvas.text`` watched for the test)."""
    texts: list[str] = []
    real = Canvas.text

    def spy(self, text, *a, **kw):  # noqa: ANN001, ANN002, ANN003
        texts.append(text)
        return real(self, text, *a, **kw)

    monkeypatch.setattr(Canvas, "text", spy)
    return texts

"""Durations on the command line are finite seconds >= 0: ``stream-game --timeout nan`` ended its wait at once
and reported '36 events published' for a broker that never connected (exit 0); ``--timeout inf --pace nan``
never ended; ``run --seconds nan`` stopped at once."""

from __future__ import annotations

from pathlib import Path

import pytest

from kiosk.cli import main

GAME = str(Path(__file__).resolve().parents[2] / "kiosk" / "data" / "games" / "builtin.gcg")


@pytest.mark.parametrize("argv", [
    ["stream-game", GAME, "--mqtt", "127.0.0.1:9", "--timeout", "nan"],
    ["stream-game", GAME, "--mqtt", "127.0.0.1:9", "--timeout", "inf"],
    ["stream-game", GAME, "--mqtt", "127.0.0.1:9", "--timeout", "-1"],
    ["stream-game", GAME, "--mqtt", "127.0.0.1:9", "--timeout", "1", "--pace", "nan"],
    ["run", "--config", "docs/examples/simulated-table.toml", "--seconds", "nan"],
    ["run", "--config", "docs/examples/simulated-table.toml", "--seconds", "-5"],
])
def test_a_duration_that_is_no_finite_number_of_seconds_is_refused(argv, capsys):
    with pytest.raises(SystemExit) as stop:
        main(argv)
    err = capsys.readouterr().err
    assert stop.value.code == 2 and "must be a finite number of seconds >= 0" in err and "Traceback" not in err

"""``kiosk bench-vision`` on a run without tile errors: the unsure share of errors is "n/a (no tile errors)",
not "nan%" (and not "BELOW the bar", which failed a perfect run); the 95th percentile is not below the median."""

from __future__ import annotations

import re

from kiosk.cli import main
from shared_data import needs_shared


@needs_shared
def test_a_perfect_run_reports_no_share_of_no_errors(tmp_path, capsys):
    rc = main(["bench-vision", "--level", "easy", "--frames", "2", "--tile-sets", "english", "--workers", "1",
               "--samples", "0", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert "nan" not in out.lower(), out
    if "tile errors: 0 " in out:
        assert re.search(r"unsure share of tile errors\s+n/a  \(no tile errors\)", out), out
        assert rc == 0
    median, p95 = (float(x) for x in re.search(r"median (\d+) ms, 95th pct (\d+) ms", out).groups())
    assert p95 >= median


def test_a_frame_size_the_renderer_cannot_draw_is_refused_by_the_option(tmp_path, capsys):
    """--size 0x0 was accepted and failed in the frame worker with a traceback (RenderError)."""
    import pytest

    for size in ("0x0", "100x100", "20000x1520"):
        with pytest.raises(SystemExit) as exc:
            main(["bench-vision", "--level", "easy", "--frames", "1", "--workers", "1", "--tile-sets", "english",
                  "--size", size, "--out", str(tmp_path)])
        assert exc.value.code == 2
        err = capsys.readouterr().err
        assert f"argument --size: size '{size}': frames are drawn from 160x120 to 10000x10000 px" in err, err


def test_a_negative_count_or_seed_is_refused_in_a_sentence(tmp_path, capsys):
    """--seed -1 and --sheet -1 ended in numpy tracebacks (exit 1); --speed / --samples -1 ran as if 0."""
    for option in ("--seed", "--sheet", "--speed", "--samples", "--games", "--calibrate"):
        rc = main(["bench-vision", "--level", "easy", "--frames", "1", "--workers", "1", "--tile-sets", "english",
                   option, "-1", "--out", str(tmp_path)])
        err = capsys.readouterr().err
        assert rc == 2, (option, err)
        assert "--seed, --samples, --speed, --sheet, --games and --calibrate must be at least 0" in err, err


def test_calibrated_reading_is_of_single_positions(tmp_path, capsys):
    """--calibrate photographs each frame's installation; whole games and timing runs are refused in a sentence."""
    for extra in (["--games", "2"], ["--speed", "2"], ["--sheet", "2"]):
        rc = main(["bench-vision", "--level", "easy", "--frames", "1", "--workers", "1", "--tile-sets", "english",
                   "--calibrate", "2", *extra, "--out", str(tmp_path)])
        err = capsys.readouterr().err
        assert rc == 2 and "--calibrate reads single positions: not with --games, --speed or --sheet" in err, err


def test_more_workers_than_the_machine_can_use_are_refused(tmp_path, capsys):
    """--workers 999999 started a pool that large for one frame (load average 169 on the 2-core machine)."""
    from kiosk.vision.train import main as train_main
    from kiosk.vision.train.bench import max_workers

    rc = main(["bench-vision", "--level", "easy", "--frames", "1", "--workers", str(max_workers() + 1),
               "--tile-sets", "english", "--out", str(tmp_path)])
    err = capsys.readouterr().err
    assert rc == 2 and f"--workers {max_workers() + 1}: at most {max_workers()} on this machine" in err, err
    assert not list(tmp_path.iterdir())      # refused before anything was drawn
    assert train_main(["squares", str(tmp_path / "s.npz"), "--workers", "999999"]) == 2
    assert "--workers 999999: at most" in capsys.readouterr().err

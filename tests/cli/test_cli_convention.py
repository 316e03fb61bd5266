"""Every ``kiosk`` subcommand keeps the command-line convention (README, "Command-line conventions"):
diagnostics on stderr naming the file and what is wrong, exit 2 for bad usage or input, the subcommand's own
usage on a wrong flag, never a traceback, and a failed write leaves nothing behind.

A table of bad invocations per subcommand: a missing file, a folder, a file that may not be read, binary data,
an empty file, a /proc target, a bad flag. Tests run as root, who may read any file: the no-permission rows run
the command in a subprocess whose root has lost the two capabilities that let it ignore file modes
(CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, dropped from its bounding set before exec), and skip, saying so, where
the kernel refuses that; as another user a mode-000 file does it directly.
"""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kiosk.cli import build_parser, main

ROOT = Path(__file__).resolve().parents[2]
P = "{P}"   # where the bad path goes in an invocation
BUILTIN_GCG = ROOT / "kiosk" / "data" / "games" / "builtin.gcg"   # a good record, for outputs of stream-game

# subcommand -> invocations with one input slot; each gets every input kind below
INPUTS: dict[str, list[list[str]]] = {
    "replay": [["replay", P]],
    "read-board": [["read-board", P]],
    "demo": [["demo", "--headless", "--game", P], ["demo", "--headless", "--recording", P]],
    "run": [["run", "--config", P, "--seconds", "1", "--headless"]],
    "journal": [["journal", "show", P], ["journal", "acknowledge", P]],
    "lexicon": [["lexicon", "compile", P, "-o", "{OUT}/x.marisa"], ["lexicon", "check", "--lexicon", P, "the"]],
    "selfplay": [["selfplay", "--quiet", "--lexicon", P]],
    "stream-game": [["stream-game", P, "--mqtt", "127.0.0.1:9", "--timeout", "1"]],
    "calibrate": [["calibrate", "intrinsics", P], ["calibrate", "pose", "--image", P],
                  ["calibrate", "exposure", "--image", P], ["calibrate", "glyphs", "--images", P]],
    "bench-vision": [["bench-vision", "--shared", P, "--frames", "1", "--out", "{OUT}/bench"]],
    "desk": [["desk", "--mqtt", "127.0.0.1:9", "--http", "127.0.0.1:18093", "--data", "{OUT}/desk", "--event", P]],
}
# kinds an invocation does not take, with the reason
NOT_APPLICABLE = {
    # a journal is a SQLite file: binary by nature, and an empty file is an empty journal; what `journal show`
    # does with a damaged one (kept aside, reported) is the journal's own contract (tests/store)
    ("journal", "binary"), ("journal", "empty"), ("journal", "proc"),
    # a recording is a folder: the folder row is its good case, the file rows are its bad ones
    ("demo --headless --recording", "directory"), ("demo --headless --recording", "unreadable"),
    # acknowledging reads the corruption report kept beside the journal, not the journal
    ("journal acknowledge", "unreadable"),
    ("calibrate intrinsics", "directory"),   # a folder of photos is what it takes
    ("bench-vision", "empty"), ("bench-vision", "binary"), ("bench-vision", "unreadable"), ("bench-vision", "proc"),
    ("desk", "unreadable"),   # the event is a folder: a file of any kind is "not a folder"
}
# subcommand -> invocations with one output slot; each gets every output kind below
OUTPUTS: dict[str, list[list[str]]] = {
    "lexicon": [["lexicon", "compile", "{WORDS}", "-o", P]],
    "selfplay": [["selfplay", "--quiet", "-o", P]],
    "calibrate": [["calibrate", "markers", "--out", P]],
    "demo": [["demo", "--headless", "--journal", P]],
    "read-board": [["read-board", "{IMAGE}", "--annotate", P]],
    "stream-game": [["stream-game", "{GCG}", "--mqtt", "127.0.0.1:9", "--timeout", "1", "--records", P]],
}
SUFFIX = {"lexicon": ".marisa", "selfplay": ".gcg", "calibrate": ".pdf", "demo": ".sqlite", "read-board": "",
          "stream-game": ""}
FOLDER_OUTPUTS = ("read-board", "stream-game")   # outputs that are folders: made when missing


def _key(argv: list[str]) -> str:
    words = [a for a in argv if a != P and not a.startswith("{")]
    key = words[0]
    for w in words[1:3]:
        if w.startswith("--") and w not in ("--headless", "--recording", "--game"):
            break
        key += " " + w
    return key


def _kinds(argv: list[str]) -> list[str]:
    return [k for k in ("missing", "directory", "unreadable", "binary", "empty", "proc")
            if (argv[0], k) not in NOT_APPLICABLE and (_key(argv), k) not in NOT_APPLICABLE
            and (" ".join(argv[:2]), k) not in NOT_APPLICABLE]


def _bad_input(kind: str, where: Path) -> str:
    if kind == "missing":
        return str(where / "nope.txt")
    if kind == "directory":
        (where / "adir").mkdir()
        return str(where / "adir")
    if kind == "binary":
        (where / "bin.dat").write_bytes(Path(sys.executable).read_bytes()[:4096])
        return str(where / "bin.dat")
    if kind == "empty":
        (where / "empty.txt").write_bytes(b"")
        return str(where / "empty.txt")
    if kind == "proc":
        return "/proc/self/status"   # a text file of size 0, of no format a command reads
    raise AssertionError(kind)


def _run(argv: list[str], capsys) -> tuple[int, str, str]:
    try:
        rc = main(argv)
    except SystemExit as exc:   # argparse's usage errors
        rc = exc.code if isinstance(exc.code, int) else 2
    out, err = capsys.readouterr()
    return rc, out, err


def _fill(argv: list[str], path: str, tmp: Path) -> list[str]:
    """The invocation with the bad path, an output folder, and good word list / image where it needs them
    (made beside the bad path, so they are there before the command runs)."""
    words = tmp / "words.txt"
    if "{WORDS}" in argv:
        words.write_text("CAT\nDOG\n", encoding="utf-8")
    image = tmp / "grey.png"
    if "{IMAGE}" in argv:
        import cv2
        import numpy as np

        cv2.imwrite(str(image), np.full((240, 320, 3), 128, np.uint8))
    return [a.replace(P, path).replace("{OUT}", str(tmp)).replace("{WORDS}", str(words))
            .replace("{IMAGE}", str(image)).replace("{GCG}", str(BUILTIN_GCG)) for a in argv]


def _check(argv: list[str], rc: int, out: str, err: str, named: str) -> None:
    cmd = argv[0]
    assert "Traceback" not in out + err, (argv, out, err)
    assert rc == 2, (argv, rc, out, err)
    assert err.strip(), f"{argv}: no diagnostic on stderr"
    assert f"kiosk {cmd}" in err, (argv, err)
    assert named in err, f"{argv}: the message does not name {named!r}: {err}"
    assert "error" not in out.lower() or cmd == "replay", (argv, out)


INPUT_ROWS = [(argv, kind) for invs in INPUTS.values() for argv in invs for kind in _kinds(argv)
              if kind != "unreadable"]


@pytest.mark.parametrize("argv, kind", INPUT_ROWS, ids=[f"{_key(a)}-{k}" for a, k in INPUT_ROWS])
def test_a_bad_input_is_named_on_stderr_with_exit_2(argv, kind, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("KIOSK_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    bad = _bad_input(kind, tmp_path)
    full = _fill(argv, bad, tmp_path)
    before = sorted(p.name for p in tmp_path.iterdir())
    rc, out, err = _run(full, capsys)
    _check(full, rc, out, err, Path(bad).name if kind != "proc" else bad)
    if argv[0] != "journal":   # nothing written beside the bad input (the cache folder aside)
        assert sorted(p.name for p in tmp_path.iterdir() if p.name != "cache") == \
            [n for n in before if n != "cache"], full


PR_CAPBSET_DROP, CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH = 24, 1, 2


def _drop_file_mode_override() -> None:
    """In the child before exec: without these two capabilities root obeys file modes like anyone."""
    libc = ctypes.CDLL(None, use_errno=True)
    for cap in (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH):
        if libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP) refused")


def _can_drop() -> bool:
    try:
        subprocess.run(["true"], preexec_fn=_drop_file_mode_override, check=True)
    except (OSError, subprocess.SubprocessError):
        return False
    return True


UNREADABLE_ROWS = [argv for invs in INPUTS.values() for argv in invs if "unreadable" in _kinds(argv)]


@pytest.mark.parametrize("argv", UNREADABLE_ROWS, ids=[_key(a) for a in UNREADABLE_ROWS])
def test_a_file_that_may_not_be_read_is_named_with_exit_2(argv, tmp_path):
    as_root = os.geteuid() == 0
    if as_root and not _can_drop():
        pytest.skip("running as root, and this kernel/container refuses to drop CAP_DAC_OVERRIDE, so root "
                    "reads a mode-000 file: no way to make a file unreadable here")
    secret = tmp_path / "secret.txt"
    secret.write_text("CAT\nDOG\n", encoding="utf-8")
    secret.chmod(0)
    full = _fill(argv, str(secret), tmp_path)
    env = dict(os.environ, KIOSK_CACHE_DIR=str(tmp_path / "cache"), XDG_DATA_HOME=str(tmp_path / "d"),
               SDL_VIDEODRIVER="dummy", PYTHONDONTWRITEBYTECODE="1")
    res = subprocess.run([sys.executable, "-m", "kiosk", *full], cwd=ROOT, env=env, capture_output=True,
                         text=True, timeout=120, preexec_fn=_drop_file_mode_override if as_root else None)
    _check(full, res.returncode, res.stdout, res.stderr, "secret.txt")
    assert "ermission denied" in res.stderr, res.stderr


def _bad_output(kind: str, where: Path, suffix: str) -> str:
    if kind == "proc":
        return f"/proc/kiosk-out{suffix}"
    if kind == "directory":
        (where / "adir").mkdir()
        return str(where / "adir")
    if kind == "no-folder":
        return str(where / "nodir" / f"x{suffix}")
    if kind == "file-as-folder":
        (where / "afile").write_text("x", encoding="utf-8")
        return str(where / "afile" / f"x{suffix}")
    raise AssertionError(kind)


OUTPUT_ROWS = [(argv, kind) for invs in OUTPUTS.values() for argv in invs
               for kind in ("proc", "directory", "no-folder", "file-as-folder")
               if not (argv[0] in FOLDER_OUTPUTS and kind in ("directory", "no-folder"))]


@pytest.mark.parametrize("argv, kind", OUTPUT_ROWS, ids=[f"{_key(a)}-{k}" for a, k in OUTPUT_ROWS])
def test_an_output_that_cannot_be_written_is_named_and_leaves_nothing(argv, kind, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("KIOSK_CACHE_DIR", str(tmp_path / "cache"))
    bad = _bad_output(kind, tmp_path, SUFFIX[argv[0]])
    full = _fill(argv, bad, tmp_path)
    before = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*"))
    rc, out, err = _run(full, capsys)
    _check(full, rc, out, err, bad if kind == "proc" else Path(bad).name if kind != "file-as-folder" else "afile")
    after = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if not str(p.relative_to(tmp_path)).startswith("cache"))
    assert after == [b for b in before if not b.startswith("cache")], full


BAD_FLAG_ROWS = [argv for invs in INPUTS.values() for argv in invs] + [argv for invs in OUTPUTS.values() for argv in invs]


@pytest.mark.parametrize("argv", BAD_FLAG_ROWS, ids=[_key(a) for a in BAD_FLAG_ROWS])
def test_a_wrong_flag_shows_the_subcommands_own_usage(argv, tmp_path, capsys):
    full = _fill(argv, str(tmp_path / "x"), tmp_path)
    rc, out, err = _run([*full, "--bogus"], capsys)
    words = [a for a in argv if not a.startswith(("-", "{"))]
    cmd = " ".join(words[:2] if argv[0] in ("journal", "lexicon", "calibrate") else words[:1])
    assert rc == 2 and not out and "Traceback" not in err
    assert err.startswith(f"usage: kiosk {cmd} ") and "unrecognized arguments: --bogus" in err, err


def test_every_subcommand_is_in_the_table():
    parser = build_parser()
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    assert set(sub.choices) == set(INPUTS), "a subcommand without bad-invocation rows"


def test_pygame_prints_no_banner_among_the_results():
    """pygame's 'Hello from the pygame community' went to stdout, among a command's results."""
    env = {k: v for k, v in os.environ.items() if k != "PYGAME_HIDE_SUPPORT_PROMPT"}
    res = subprocess.run([sys.executable, "-c", "import kiosk.cli, pygame"], cwd=ROOT, env=env, capture_output=True,
                         text=True, timeout=60)
    assert res.returncode == 0 and res.stdout == "", res.stdout


def test_stream_game_names_an_unknown_host_and_counts_events_as_queued(capsys):
    """An unknown host name was reported as a broker that 'never connected', after '33/33 events'."""
    from shared_data import HAVE_SHARED, SHARED

    if not HAVE_SHARED:
        pytest.skip("../shared is absent: the game record is read from it")
    game = str(SHARED / "corpus" / "gcg" / "real" / "domino14_macondo__gcgio_testdata__doug_v_emely_double_challenge.gcg")
    rc, out, err = _run(["stream-game", game, "--mqtt", "no-such-host.invalid:1883"], capsys)
    assert rc == 2 and not out and "unknown host 'no-such-host.invalid'" in err, err
    rc, out, err = _run(["stream-game", game, "--mqtt", "127.0.0.1:9", "--timeout", "0.5"], capsys)
    assert rc == 1 and not out and "33/33 events queued" in err and "never connected" in err, err


@pytest.mark.parametrize("names", ["x\ny,z", "x\ty,z", "a\x00b,c"])
def test_selfplay_refuses_a_nickname_that_would_break_its_record(names, tmp_path, capsys):
    """A tester's --names 'x<newline>y,z' exited 0 with a GCG its own replay rejects."""
    out = tmp_path / "g.gcg"
    assert main(["selfplay", "--names", names, "-o", str(out)]) == 2
    err = capsys.readouterr().err   # the nickname named, and why
    assert f"--names: the nickname {names.split(',')[0]!r} holds a control character" in err
    assert not out.exists()


def test_stream_game_with_a_username_and_no_password_is_refused_as_the_desk_refuses_it(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("NO_SUCH_PASSWORD_VAR", raising=False)
    rec = tmp_path / "g.gcg"
    assert main(["selfplay", "-o", str(rec)]) == 0
    capsys.readouterr()
    assert main(["stream-game", "--mqtt", "127.0.0.1:1", "--username", "u", "--password-env", "NO_SUCH_PASSWORD_VAR",
                 str(rec)]) == 2
    assert ("--username u: the environment variable NO_SUCH_PASSWORD_VAR holding the password is not set"
            in capsys.readouterr().err)


def test_stream_game_names_an_unknown_preset_as_the_option_s(tmp_path, capsys):
    """`--preset nope` was blamed on the record ("good.gcg: unknown preset 'nope'")."""
    rec = tmp_path / "good.gcg"
    assert main(["selfplay", "-o", str(rec)]) == 0
    capsys.readouterr()
    assert main(["stream-game", "--mqtt", "127.0.0.1:1", "--preset", "nope", str(rec)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("kiosk stream-game: --preset nope: unknown preset 'nope' (bundled: ") and "good.gcg" not in err

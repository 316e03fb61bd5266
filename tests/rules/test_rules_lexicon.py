"""Lexicon: default ENABLE list, compiling an event's word list, clear errors."""

import pytest

from kiosk.cli import main
from kiosk.lexicons import compile_word_list, load_lexicon, read_word_list
from kiosk.rules.lexicon import LexiconError, default_lexicon


def test_default_lexicon_is_enable():
    lex = default_lexicon()
    assert lex.name == "ENABLE" and len(lex) == 172820
    assert "AARDVARK" in lex and "aardvark" in lex and "ZYZZYVA" in lex
    assert "QI" not in lex and "XYZZY" not in lex and 5 not in lex
    assert "ReTAiNS" in lex  # blanks (lower case) count as their letter


def test_compile_and_load(tmp_path):
    src = tmp_path / "club.txt"
    src.write_text("# my list\nQI\nza definition of za\n\nxu\nQI\n", encoding="utf-8")
    out = tmp_path / "club.marisa"
    lex = compile_word_list(src, out, "CLUB")
    assert len(lex) == 3 and "QI" in lex and "ZA" in lex and "XU" in lex and "DEFINITION" not in lex
    again = load_lexicon(out)
    assert again.name == "CLUB" and "qi" in again


@pytest.mark.parametrize("content,msg", [(b"", "empty"), (b"\n\n# only comments\n", "empty"), (b"\x00\x01\x02ELF", "w.txt: binary data, not a word list")])
def test_bad_word_lists(tmp_path, content, msg):
    p = tmp_path / "w.txt"
    p.write_bytes(content)
    with pytest.raises(LexiconError, match=msg):
        read_word_list(p)


def test_missing_and_corrupt_files(tmp_path):
    with pytest.raises(LexiconError, match="no such"):
        read_word_list(tmp_path / "nope.txt")
    bad = tmp_path / "bad.marisa"
    bad.write_bytes(b"this is not a trie" * 10)
    with pytest.raises(LexiconError, match="corrupt .the file is not a MARISA trie, or it was cut short") as exc:
        load_lexicon(bad)
    assert "MARISA_" not in str(exc.value)     # the library's C++ error codes are not shown to a user
    bad.write_bytes(b"")
    with pytest.raises(LexiconError, match="corrupt .the file is empty; compile the word list again"):
        load_lexicon(bad)


def test_cli_compile_and_check(tmp_path, capsys):
    src = tmp_path / "list.txt"
    src.write_text("CAT\nDOG\n", encoding="utf-8")
    out = tmp_path / "l.marisa"
    assert main(["lexicon", "compile", str(src), "-o", str(out)]) == 0
    assert main(["lexicon", "check", "cat", "--lexicon", str(out)]) == 0
    assert main(["lexicon", "check", "cow", "--lexicon", str(out)]) == 1
    assert main(["lexicon", "compile", str(tmp_path / "missing.txt")]) == 2
    assert "no such word list" in capsys.readouterr().err


def test_a_readme_is_refused_naming_its_first_line_that_is_no_word(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text("# Scrabble referee kiosk\n\n```sh\n./run demo\n```\n\nBoth commands need python3\n",
                      encoding="utf-8")
    with pytest.raises(LexiconError, match=r"README.md:3: '```SH' is not a word; a word list holds one word per "
                                           r"line \(3 of 4 lines are not words of the tile set\)"):
        read_word_list(readme)


def test_letters_outside_the_tile_set_are_refused_with_their_line(tmp_path):
    from kiosk.rules.tiles import ENGLISH, GERMAN

    src = tmp_path / "fr.txt"
    src.write_text("ETE\nété\n", encoding="utf-8")
    with pytest.raises(LexiconError, match=r"fr.txt:2: 'ÉTÉ' has letters not in the tile set: É"):
        read_word_list(src, ENGLISH.letters)
    de = tmp_path / "de.txt"
    de.write_text("ÄRGER\nU\u0308BER\n", encoding="utf-8")   # the second Ü decomposed: read as Ü
    assert read_word_list(de, GERMAN.letters) == ["ÄRGER", "ÜBER"]
    with pytest.raises(LexiconError, match="de.txt:1: 'ÄRGER' has letters not in the tile set: Ä"):
        read_word_list(de, ENGLISH.letters)


def test_cli_check_names_the_lexicon_that_answered_and_compile_refuses_bad_lists(tmp_path, capsys):
    src = tmp_path / "club.txt"
    src.write_text("CAT\n", encoding="utf-8")
    out = tmp_path / "club.marisa"
    assert main(["lexicon", "compile", str(src), "-o", str(out), "--name", "CLUB"]) == 0
    capsys.readouterr()
    assert main(["lexicon", "check", "cat", "dog", "--lexicon", str(out)]) == 1
    assert capsys.readouterr().out.splitlines() == ["CAT: acceptable in CLUB", "DOG: not in CLUB"]
    assert main(["lexicon", "check", "the"]) == 0
    assert capsys.readouterr().out == "THE: acceptable in ENABLE\n"
    fr = tmp_path / "fr.txt"
    fr.write_text("ÉTÉ\n", encoding="utf-8")
    assert main(["lexicon", "compile", str(fr), "-o", str(tmp_path / "fr.marisa")]) == 2
    assert "fr.txt:1: 'ÉTÉ' has letters not in the tile set: É" in capsys.readouterr().err
    assert main(["lexicon", "check", "--lexicon", str(fr), "ete"]) == 2
    assert not (tmp_path / "fr.marisa").exists()


@pytest.mark.parametrize("target", ["/proc/x.marisa", "{file}/x.marisa", "{dir}", "{dir}/nodir/x.marisa",
                                    "{dir}/x.txt"])
def test_compile_to_a_path_that_cannot_be_written_leaves_nothing_behind(tmp_path, target, capsys):
    src = tmp_path / "w.txt"
    src.write_text("CAT\n", encoding="utf-8")
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    (tmp_path / "afile").write_text("x", encoding="utf-8")
    out = target.format(file=tmp_path / "afile", dir=out_dir)
    assert main(["lexicon", "compile", str(src), "-o", out]) == 2
    err = capsys.readouterr().err
    assert err.startswith("kiosk lexicon: ") and "Traceback" not in err   # refused before reading the list
    assert list(out_dir.iterdir()) == [] and sorted(p.name for p in tmp_path.iterdir()) == ["afile", "out", "w.txt"]


def test_the_rules_core_writes_no_files():
    """kiosk/rules promises no I/O beyond reading bundled data: no module there writes, creates or renames."""
    import ast
    from pathlib import Path

    import kiosk.rules

    writes = {"write_text", "write_bytes", "mkdir", "save", "mkstemp", "touch", "makedirs"}
    os_writes = {"replace", "rename", "unlink", "remove"}
    found = []
    for path in Path(kiosk.rules.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and (node.attr in writes or node.attr in os_writes and
                                                    getattr(node.value, "id", "") in ("os", "shutil")):
                found.append(f"{path.name}:{node.lineno}: .{node.attr}")
            if isinstance(node, ast.Import | ast.ImportFrom) and {"tempfile", "shutil"} & {
                    (a.name if isinstance(node, ast.Import) else node.module or "") for a in node.names}:
                found.append(f"{path.name}:{node.lineno}: imports tempfile/shutil")
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "open" and len(node.args) > 1:
                found.append(f"{path.name}:{node.lineno}: open(..., mode)")
    assert not found, found


def test_checking_an_empty_word_is_bad_usage(capsys):
    """`kiosk lexicon check qi ''` answered ': not in ENABLE' for the empty argument."""
    assert main(["lexicon", "check", "qi", ""]) == 2
    out, err = capsys.readouterr()
    assert not out and "'' is not a word" in err


@pytest.mark.parametrize("word", ["123", "ca-t", "d?g"])
def test_cli_check_refuses_what_is_no_word_of_the_tiles(word, capsys):
    """A tester's `lexicon check 123` was answered "not in ENABLE" with exit 1, as if it were a word."""
    assert main(["lexicon", "check", "cat", word]) == 2
    out = capsys.readouterr()
    assert f"{word!r} is not a word: it holds characters that are no letter of the english tiles" in out.err
    assert out.out == ""      # nothing looked up

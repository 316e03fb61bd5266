"""Lexicon: default ENABLE list, compiling an event's word list, clear errors."""

import pytest

from kiosk.cli import main
from kiosk.rules.lexicon import LexiconError, compile_word_list, default_lexicon, load_lexicon, read_word_list


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


@pytest.mark.parametrize("content,msg", [(b"", "empty"), (b"\n\n# only comments\n", "empty"), (b"\x00\x01\x02ELF", "not a text")])
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
    with pytest.raises(LexiconError, match="corrupt"):
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

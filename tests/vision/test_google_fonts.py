"""The Google Fonts faces of the renderer (kiosk.vision.synth.google_fonts, scripts/fetch_fonts.py): the table
follows its rule row by row, no never-trained group shares a design with a Debian face, and the fetch script
checks what it fetches (a hash that differs, a file without the tile sets' letters, a package that is not there)
without a network. The suite never draws these faces (tests/conftest.py points KIOSK_FONT_DIR at an empty
folder), so it reads the same frames with and without them."""

from __future__ import annotations

import hashlib
import importlib.util
import io
import json
import re
import subprocess
import sys
import tarfile
import urllib.error
from pathlib import Path

import pytest

from kiosk.vision.synth import fonts, google_fonts

ROOT = Path(__file__).resolve().parents[2]
DEJAVU = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf")


def _script(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_table_rows_follow_the_rule():
    rows = google_fonts.rows()
    assert len(rows) >= 300
    per_group: dict[str, list[dict[str, str]]] = {}
    text_rows = {r["id"]: r for r in rows if not google_fonts.is_thin(r)}
    for r in rows:
        assert r["name"] == f"g-{r['id']}-{r['weight']}", r
        if google_fonts.is_thin(r):   # a text family's thin weight: its role follows the family's
            family = text_rows[r["id"]]
            assert r["weight"] in ("100", "200") and r["group"] == family["group"], r
            assert r["role"] == google_fonts.thin_role_of(r["group"], family["role"]), r
            assert r["role"] in (fonts.DISPLAY_TRAINING, fonts.DISPLAY_VALIDATION, fonts.DISPLAY_HELD_OUT_3), r
            assert (r["role"] == fonts.DISPLAY_TRAINING) == (family["role"] == fonts.TRAINING), r
            continue
        per_group.setdefault(r["group"], []).append(r)
        batch = google_fonts.display_batch_of(r["id"])
        if batch is not None:     # display lettering: its own rule and roles, by batch
            assert r["role"] == google_fonts.display_role_of(r["group"], batch), r
            assert not any(t["group"] == r["group"] for t in rows
                           if google_fonts.display_batch_of(t["id"]) != batch), r
        else:
            assert r["role"] == google_fonts.role_of(r["group"]), r
            assert r["category"] in google_fonts.TEXT_CATEGORIES and 600 <= int(r["weight"]) <= 900, r
        assert r["group"] == r["family"].split()[0].lower(), r
        assert re.fullmatch(r"\d+\.\d+\.\d+", r["version"]) and re.fullmatch(r"[0-9a-f]{64}", r["sha256"]), r
    assert all(len(members) <= google_fonts.PER_GROUP for members in per_group.values())
    roles = {r["role"] for r in rows}
    assert roles == {fonts.TRAINING, fonts.VALIDATION_2, fonts.HELD_OUT_3, fonts.HELD_OUT_4, fonts.HELD_OUT_5,
                     fonts.HELD_OUT_6, fonts.HELD_OUT_7, fonts.HELD_OUT_8, fonts.DISPLAY_TRAINING,
                     fonts.DISPLAY_VALIDATION, fonts.DISPLAY_HELD_OUT, fonts.DISPLAY_HELD_OUT_2,
                     fonts.DISPLAY_HELD_OUT_3}
    assert sum(r["role"] == fonts.HELD_OUT_3 for r in rows) >= 40
    # every display role has faces, the dot-matrix face of held-out-5 is none of them
    assert all(sum(r["role"] == role for r in rows) >= 2 for role in (
        fonts.DISPLAY_TRAINING, fonts.DISPLAY_VALIDATION, fonts.DISPLAY_HELD_OUT, fonts.DISPLAY_HELD_OUT_2,
        fonts.DISPLAY_HELD_OUT_3))
    assert next(r["role"] for r in rows if r["id"] == "doto") == fonts.HELD_OUT_5
    assert sum(google_fonts.is_thin(r) for r in rows) == len(google_fonts.THIN_IDS)


def test_no_group_is_both_trained_on_and_never_trained():
    """A group (family) with a row of a training role (``training``, ``display-training``) has no row of a
    never-trained role, thin weights and the third display batch's held-out faces included."""
    rows = google_fonts.rows()
    trained = {r["group"] for r in rows if r["role"] not in fonts.NEVER_TRAINED}
    never = {r["group"] for r in rows if r["role"] in fonts.NEVER_TRAINED}
    assert trained and never and not trained & never, trained & never
    held_out_3 = {r["group"] for r in rows if r["role"] == fonts.DISPLAY_HELD_OUT_3}
    assert len(held_out_3) >= 10 and not held_out_3 & trained
    # the third batch's own families are groups of no other row
    batch_3 = {r["group"] for r in rows if google_fonts.display_batch_of(r["id"]) == 3}
    assert len(batch_3) >= 30
    assert not any(r["group"] in batch_3 for r in rows if google_fonts.display_batch_of(r["id"]) != 3)


def test_no_never_trained_group_shares_a_name_with_a_debian_family():
    """A group of the never-trained roles is no family (or clone) of the Debian table's, by its first word."""
    debian_words = {f.family.split()[0].lower() for f in fonts.DEBIAN_FONTS}
    debian_words |= {w.lower() for w in fonts.BUILTIN_FAMILIES.values()}
    for f in fonts.GOOGLE_FONTS:
        group = f.family.split()[0]
        if f.role in fonts.NEVER_TRAINED:    # a trained family's thin weight is display-training
            assert group not in debian_words | google_fonts.TRAINED_WORDS, f
        assert group not in google_fonts.LEFT_OUT_WORDS, f
    trained = {f.family for f in fonts.GOOGLE_FONTS if f.role == fonts.TRAINING}
    never = {f.family for f in fonts.GOOGLE_FONTS if f.role in fonts.NEVER_TRAINED}
    assert trained and never and not trained & never


def test_role_of_a_group_and_the_weight_chosen():
    assert google_fonts.role_of("lato") is None          # held out (first batch)
    assert google_fonts.role_of("fira") is None          # validation
    assert google_fonts.role_of("noto") == fonts.TRAINING  # Noto Sans is Open Sans' design: trained
    by_digit = {g: google_fonts.digest(g)[0] % 10 for g in ("alpha", "bravo", "charlie", "delta", "echo")}
    for g, d in by_digit.items():
        assert google_fonts.role_of(g) == {0: "held-out-3", 1: "validation-2", 2: "held-out-4",
                                         3: "held-out-5", 4: "held-out-6", 5: "held-out-7",
                                         6: "held-out-8"}.get(d, "training")
    assert google_fonts.weight_of([400, 600, 800]) == 800   # 600 and 800 tie: the heavier
    assert google_fonts.weight_of(["400", "700", "900"]) == 700
    assert google_fonts.weight_of([300, 400, 500]) is None
    assert google_fonts.weight_of([900]) == 900
    assert google_fonts.display_weight_of([400]) == 400 and google_fonts.display_weight_of([300, 600, 900]) == 600
    assert google_fonts.display_weight_of([]) is None
    assert {google_fonts.display_role_of(g) for g in ("alpha", "bravo", "charlie", "delta", "echo", "golf")} <= {
        fonts.DISPLAY_TRAINING, fonts.DISPLAY_VALIDATION, fonts.DISPLAY_HELD_OUT}
    assert [google_fonts.display_role_of(g) for g in ("bitcount", "codystar", "jersey")] == [
        fonts.DISPLAY_VALIDATION, fonts.DISPLAY_HELD_OUT, fonts.DISPLAY_TRAINING]
    # the second batch: the same hash, its held-out groups a batch of their own
    assert [google_fonts.display_role_of(g, 2) for g in ("bitcount", "codystar", "jersey")] == [
        fonts.DISPLAY_VALIDATION, fonts.DISPLAY_HELD_OUT_2, fonts.DISPLAY_TRAINING]
    assert [google_fonts.display_role_of(g, 3) for g in ("bitcount", "codystar", "jersey")] == [
        fonts.DISPLAY_VALIDATION, fonts.DISPLAY_HELD_OUT_3, fonts.DISPLAY_TRAINING]
    with pytest.raises(ValueError, match="display batch 4: one of 1-3"):
        google_fonts.display_role_of("codystar", 4)
    assert google_fonts.display_batch_of("codystar") == 1 and google_fonts.display_batch_of("roboto") is None
    assert google_fonts.display_batch_of("wire-one") == 3
    batches = [set(ids) for ids, _ in google_fonts.DISPLAY_BATCHES]
    assert not any(a & b for i, a in enumerate(batches) for b in batches[i + 1:])
    # thin weights: 100 before 200; a training family's is trained on, any other's never
    assert google_fonts.thin_weight_of([100, 200, 700]) == 100 and google_fonts.thin_weight_of(["200", "400"]) == 200
    assert google_fonts.thin_weight_of([300, 700]) is None
    assert google_fonts.thin_role_of("roboto", "training") == fonts.DISPLAY_TRAINING
    assert {google_fonts.thin_role_of(g, "held-out-5") for g in ("alpha", "bravo", "charlie", "delta", "echo")} == {
        fonts.DISPLAY_VALIDATION, fonts.DISPLAY_HELD_OUT_3}


def test_a_fetched_face_missing_is_named_with_the_fetch_script(monkeypatch):
    face = next(f for f in fonts.GOOGLE_FONTS if f.role == fonts.VALIDATION_2)
    assert not Path(face.path).is_file()         # the suite's font folder is empty
    assert face.name not in fonts.present(fonts.VALIDATION_2)
    with pytest.raises(fonts.FontMissing, match=r"scripts/fetch_fonts\.py"):
        fonts.font_file(face.name)


def test_the_font_folder_is_read_from_the_environment(tmp_path):
    """A face whose file is in $KIOSK_FONT_DIR is present; the others of its role are not."""
    if not DEJAVU.is_file():
        pytest.skip("fonts-dejavu-core not installed (scripts/system-packages.txt)")
    face = next(r for r in google_fonts.rows() if r["role"] == fonts.VALIDATION_2)
    (tmp_path / f"{face['name']}.woff").write_bytes(DEJAVU.read_bytes())
    code = ("from kiosk.vision.synth import fonts; import json; "
            "print(json.dumps(fonts.present('validation-2')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT,
                         env={"KIOSK_FONT_DIR": str(tmp_path), "PATH": "/usr/bin:/bin"})
    assert json.loads(out.stdout) == [face["name"]]


def _tarball(member: str, data: bytes) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        info = tarfile.TarInfo(member)
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def _registry(monkeypatch, mod, files: dict[str, bytes]) -> None:
    """The fetch script's registry answers from ``files`` (package id -> font bytes); others are 404."""
    def get(url: str) -> bytes:
        if url.endswith(".tgz"):
            fid = url.rsplit("/", 1)[1].removesuffix(".tgz")
            return files[fid]
        fid = url.split("%2f", 1)[1].split("/", 1)[0]
        if fid not in files:
            raise urllib.error.HTTPError(url, 404, "Not Found", None, None)  # type: ignore[arg-type]
        return json.dumps({"version": "9.9.9", "dist": {"tarball": f"https://registry.test/{fid}.tgz"}}).encode()
    monkeypatch.setattr(mod, "_get", get)


def test_fetch_checks_the_hash_the_letters_and_the_package(monkeypatch, tmp_path):
    pytest.importorskip("fontTools", reason="fonttools is in the dev extra")
    if not DEJAVU.is_file():
        pytest.skip("fonts-dejavu-core not installed (scripts/system-packages.txt)")
    mod = _script("fetch_fonts")
    data = DEJAVU.read_bytes()
    row = {"name": "g-demo-700", "id": "demo", "weight": "700", "version": "", "sha256": ""}
    _registry(monkeypatch, mod, {"demo": _tarball("package/files/demo-latin-700-normal.woff", data)})
    assert mod.fetch(row, tmp_path) == ("g-demo-700", "9.9.9", hashlib.sha256(data).hexdigest())
    assert (tmp_path / "g-demo-700.woff").read_bytes() == data and mod.lacking(tmp_path / "g-demo-700.woff") == ""
    with pytest.raises(RuntimeError, match=r"g-demo-700: .* has SHA-256 [0-9a-f]{64}, the table pins 00"):
        mod.fetch({**row, "sha256": "00" * 32}, tmp_path)
    with pytest.raises(RuntimeError, match=r"g-demo-700: @fontsource/demo@9.9.9 has no package/files/demo-latin-800"):
        mod.fetch({**row, "weight": "800"}, tmp_path)
    with pytest.raises(urllib.error.HTTPError):
        mod.fetch({**row, "id": "absent"}, tmp_path)
    # a font without Ä Ö Ü (a cut-down copy of one with them) is named by what it lacks
    assert mod.lacking(_without_umlauts(tmp_path)) == "ÄÖÜ"


def _without_umlauts(folder: Path) -> Path:
    """A copy of DejaVu Sans cut down to A-Z and 0-9 (no Ä Ö Ü), written into ``folder``."""
    from fontTools import subset

    options = subset.Options()
    font = subset.load_font(str(DEJAVU), options)
    sub = subset.Subsetter(options)
    sub.populate(text="ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
    sub.subset(font)
    cut = folder / "cut.ttf"
    subset.save_font(font, str(cut), options)
    font.close()
    return cut


def _family(name: str, category: str = "sans-serif", weights=(400, 700), subsets=("latin",), styles=("normal",)):
    return {"family": name, "category": category, "weights": list(weights), "subsets": list(subsets),
            "styles": list(styles)}


def test_the_table_script_applies_the_rule_and_names_a_bad_file(monkeypatch, tmp_path, capsys):
    mod = _script("google_fonts_table")
    meta = {
        "ok-sans": _family("Ok Sans"),
        "ok-serif": _family("Ok Serif", "serif", (400, 600, 800)),
        "shout": _family("Shout", "display"),                          # a display face: out
        "thin-one": _family("Thin One", weights=(300, 400)),            # no bold: out
        "greek-only": _family("Greek Only", subsets=("greek",)),         # no latin: out
        "slanted": _family("Slanted", styles=("italic",)),               # no upright style: out
        "lato": _family("Lato"),                                         # a held-out family: out
        "noto-serif": _family("Noto Serif", "serif"),                    # Noto: trained
        "material-icons": _family("Material Icons"),                     # an icon face: out
        **{f"wide-{i}": _family(f"Wide {i}") for i in range(6)},         # one group: at most PER_GROUP
    }
    rows = mod.rows(meta)
    assert not any(r["role"].startswith("display-") for r in rows)     # no display face listed in the meta
    by_name = {r["name"]: r for r in rows}
    assert {"g-ok-sans-700", "g-ok-serif-800", "g-noto-serif-700"} <= set(by_name)
    assert by_name["g-noto-serif-700"]["role"] == fonts.TRAINING
    assert by_name["g-ok-sans-700"]["role"] == by_name["g-ok-serif-800"]["role"] == google_fonts.role_of("ok")
    assert not {r["id"] for r in rows} & {"shout", "thin-one", "greek-only", "slanted", "lato", "material-icons"}
    assert sum(r["group"] == "wide" for r in rows) == google_fonts.PER_GROUP
    # display lettering: the faces named in DISPLAY_IDS, whatever their category and weight, not joining a
    # group of the text rows'
    display = {"pix-mono": _family("Pix Mono", "monospace", (400,)),
               "dots-one": _family("Dots One", "display", (300, 600, 900)),
               "ok-pixel": _family("Ok Pixel", "display"), "shout": _family("Shout", "display")}
    monkeypatch.setattr(google_fonts, "DISPLAY_BATCHES", (
        (("pix-mono", "dots-one", "ok-pixel", "absent-one"), google_fonts.DISPLAY_ROLE_BY_DIGIT),
        (("volt-led", "pix-two"), google_fonts.DISPLAY_ROLE_BY_DIGIT_2)))
    display["volt-led"] = _family("Volt Led", "display", (400,))
    display["pix-two"] = _family("Pix Two", "display", (400,))     # group "pix": the first batch's
    rows = mod.rows({**meta, **display})
    shown = {r["id"]: r for r in rows if r["id"] in display}
    # ok-pixel's group "ok" is a text group's, pix-two's an earlier display batch's; shout is unnamed
    assert set(shown) == {"pix-mono", "dots-one", "volt-led"}
    assert shown["volt-led"]["role"] == fonts.DISPLAY_HELD_OUT_2 == google_fonts.display_role_of("volt", 2)
    assert shown["pix-mono"]["name"] == "g-pix-mono-400" and shown["dots-one"]["weight"] == "600"
    assert shown["pix-mono"]["role"] == google_fonts.display_role_of("pix")
    assert shown["dots-one"]["role"] == google_fonts.display_role_of("dots")
    assert {r["id"] for r in rows} - set(display) == {r["id"] for r in mod.rows(meta)}
    # thin weights: a row of their own beside the family's text row, the role on the family's side of training
    monkeypatch.setattr(google_fonts, "THIN_IDS", ("ok-sans", "noto-serif", "ok-serif", "absent-thin"))
    thin_meta = {**meta, "ok-sans": _family("Ok Sans", weights=(100, 200, 700)),
                 "noto-serif": _family("Noto Serif", "serif", (200, 700))}
    thin = {r["name"]: r for r in mod.rows(thin_meta) if google_fonts.is_thin(r)}
    assert set(thin) == {"g-ok-sans-100", "g-noto-serif-200"}           # Ok Serif has no thin weight
    assert thin["g-noto-serif-200"]["role"] == fonts.DISPLAY_TRAINING
    assert thin["g-ok-sans-100"]["role"] == google_fonts.thin_role_of("ok", google_fonts.role_of("ok") or "")
    assert thin["g-ok-sans-100"]["role"] in (fonts.DISPLAY_TRAINING, fonts.DISPLAY_VALIDATION, fonts.DISPLAY_HELD_OUT_3)
    bad = tmp_path / "bad.json"
    bad.write_text('{"x": 1}')
    assert mod.main([str(bad)]) == 2
    assert f"{bad}: not google-font-metadata's google-fonts-v1.json" in capsys.readouterr().err
    assert mod.main([str(tmp_path / "absent.json")]) == 2


def test_pinning_drops_a_face_not_published_and_one_without_umlauts(monkeypatch, tmp_path, capsys):
    """``fetch_fonts.py --pin``: a face whose package is not on the registry (404) and one whose file lacks Ä Ö Ü
    leave the table, named; the face fetched whole is pinned; nothing else is an error."""
    pytest.importorskip("fontTools", reason="fonttools is in the dev extra")
    if not DEJAVU.is_file():
        pytest.skip("fonts-dejavu-core not installed (scripts/system-packages.txt)")
    mod = _script("fetch_fonts")
    cut = _without_umlauts(tmp_path)
    table = tmp_path / "table.csv"
    base = {"family": "X", "category": "serif", "weight": "700", "role": "training", "version": "", "sha256": ""}
    faces = [{**base, "name": f"g-{fid}-700", "group": fid, "id": fid} for fid in ("whole", "cut", "gone")]
    with open(table, "w", encoding="utf-8", newline="") as fh:
        google_fonts.write(faces, fh)
    monkeypatch.setattr(google_fonts, "TABLE", table)
    monkeypatch.setenv("KIOSK_FONT_DIR", str(tmp_path / "fonts"))
    _registry(monkeypatch, mod, {"whole": _tarball("package/files/whole-latin-700-normal.woff", DEJAVU.read_bytes()),
                                 "cut": _tarball("package/files/cut-latin-700-normal.woff", cut.read_bytes())})
    assert mod.main(["--pin", "--jobs", "2"]) == 0
    out = capsys.readouterr().out
    assert "dropped g-cut-700: its character map lacks ÄÖÜ" in out
    assert "dropped from the table: g-cut-700, g-gone-700" in out
    pinned = google_fonts.rows(table)
    assert [r["name"] for r in pinned] == ["g-whole-700"]
    assert pinned[0]["version"] == "9.9.9"
    assert pinned[0]["sha256"] == hashlib.sha256(DEJAVU.read_bytes()).hexdigest()

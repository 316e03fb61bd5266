"""The shipped calibration profiles the real-photo tests read (tests/fixtures/profiles, see its README): still
built from the current material, still loadable by the reader, and models of that material."""

from __future__ import annotations

import hashlib

import pytest
from common_fixtures import GAMES_PROFILE, PROFILES, TEMPLATES_PROFILE

from kiosk.rules.tiles import GERMAN
from kiosk.vision.profile import load_profile
from kiosk.vision.reader import BoardReader
from shared_data import SHARED, needs_shared

MATERIAL = SHARED / "photos" / "scrabscrap"
REBUILD = "rebuild them: bash tests/fixtures/profiles/build.sh (tests/fixtures/profiles/README.md)"


@pytest.mark.parametrize(("path", "with_games"), [(TEMPLATES_PROFILE, False), (GAMES_PROFILE, True)])
def test_shipped_profile_loads_into_a_german_reader(path, with_games):
    prof = load_profile(path)
    assert prof.tile_set == "german" and prof.glyph_model.data and "templates" in prof.notes
    assert bool(prof.occupancy_model.data) == with_games
    assert path.stat().st_size < 400_000
    reader = BoardReader(GERMAN, prof)          # the models' shapes fit the reader's features, or this raises
    assert set(reader.glyphs.letters) == set(GERMAN.letters)
    assert (reader.occupancy_general is not None) == with_games


@needs_shared
def test_shipped_profiles_were_built_from_the_current_material():
    listed = {}
    for line in (PROFILES / "material.sha256").read_text(encoding="utf-8").splitlines():
        digest, name = line.split(maxsplit=1)
        listed[name] = digest
    now = {f"letter-templates/default/{p.name}" for p in (MATERIAL / "letter-templates" / "default").glob("*.png")}
    assert now == {n for n in listed if n.startswith("letter-templates/")}, f"the letter images changed: {REBUILD}"
    changed = [n for n, digest in listed.items()
               if not (MATERIAL / n).is_file() or hashlib.sha256((MATERIAL / n).read_bytes()).hexdigest() != digest]
    assert changed == [], f"{len(changed)} file(s) of the profiles' material changed ({changed[:5]}): {REBUILD}"


@needs_shared
@pytest.mark.parametrize("path", [TEMPLATES_PROFILE, GAMES_PROFILE])
def test_shipped_profile_reads_the_letter_images_it_was_trained_on(path):
    from kiosk.vision.train import template_samples

    samples = template_samples(MATERIAL / "letter-templates" / "default")
    assert len(samples) == 29
    preds = BoardReader(GERMAN, load_profile(path)).glyphs.predict([g for g, _ in samples])
    assert [(p.letter, p.turns) for p in preds] == [(letter, 0) for _, letter in samples]

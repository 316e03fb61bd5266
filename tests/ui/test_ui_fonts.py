"""Players' names in any script on the touchscreen: every letter drawn with a face that has it (never the
missing-glyph box), right-to-left names in visual order, and a name of any length cut with an ellipsis where it
does not fit (screenshots under artifacts/ui/fonts-*)."""

from __future__ import annotations

import unicodedata

import pygame
import pygame.freetype
import pytest
from test_ui_screens import SIZES, shot
from ui_fixtures import ARTIFACTS, make_kiosk

from kiosk.ui.app import KioskUI
from kiosk.ui.arabic import join_forms
from kiosk.ui.fonts import face_font, face_paths, visual_order
from kiosk.ui.widgets import ELLIPSIS, cut_to_width, font

NAMES = {
    "vietnamese": "Nguyễn Thị Hằng",
    "yoruba": "Ọlálékan Adébáyọ̀",
    "greek": "Γιώργος Παπαδόπουλος",
    "cyrillic": "Дмитрий Иванов",
    "hebrew": "יוסי כהן",
    "arabic": "محمد",
    "thai": "สมชาย",
    "devanagari": "अमित",
    "cjk": "王小明 やまだ 김민준",
}


@pytest.fixture(scope="module", autouse=True)
def _display():
    pygame.display.init()
    pygame.font.init()
    pygame.freetype.init()
    yield
    pygame.display.quit()


def _raster(img: pygame.Surface) -> bytes:
    return pygame.image.tostring(img, "RGBA")


def test_the_screen_has_wide_coverage_faces_installed():
    assert any(p.endswith("DejaVuSans.ttf") for p in face_paths()), \
        "no DejaVu Sans: apt-get install fonts-dejavu-core (scripts/system-packages.txt)"


@pytest.mark.parametrize("script", NAMES)
def test_every_letter_of_a_name_is_drawn_not_a_missing_glyph_box(script):
    name = NAMES[script]
    f = font(40)
    for ch in unicodedata.normalize("NFC", name):
        if ch.isspace() or unicodedata.combining(ch):
            continue
        drawn = _raster(f.render(ch, True, (255, 255, 255)))
        # the missing-glyph box of every face the screen may draw with, at the sizes it uses
        for path in (*face_paths(), None):
            box = face_font(path, 40).render("\uffff", True, (255, 255, 255))
            assert drawn != _raster(box), f"{script}: {ch!r} drawn as the missing-glyph box of {path}"
        (path, part), = f.runs(ch)
        metrics = pygame.freetype.Font(path, 24).get_metrics(part)
        assert None not in metrics, f"{script}: {ch!r} drawn with {path}, which has no glyph for it"


def test_right_to_left_names_are_drawn_in_visual_order():
    assert visual_order("Yossi") == "Yossi"
    assert visual_order("יוסי כהן") == "ןהכ יסוי"  # a right-to-left line: words and letters reversed
    assert visual_order("Challenge by יוסי") == "Challenge by יסוי"  # the name alone in a left-to-right line
    assert visual_order("אב 12") == "12 בא"  # digits stay left to right
    assert visual_order("שָׁלוֹם") == "ם" + "וֹ" + "ל" + "שָׁ"  # marks stay after their letters


def test_arabic_letters_take_their_joined_forms_then_run_right_to_left():
    assert join_forms("محمد") == "\ufee3\ufea4\ufee4\ufeaa"  # initial, medial, medial, final
    assert join_forms("علي") == "\ufecb\ufee0\ufef2"
    assert join_forms("دار") == "\ufea9\ufe8d\ufead"  # dal and alef never join the next letter: all isolated
    assert join_forms("سلام") == "\ufeb3\ufefc\ufee1"  # lam-alef ligature (final after sin)
    assert join_forms("پژمان") == "\ufb58\ufb8b\ufee3\ufe8e\ufee5"  # Persian letters too
    assert join_forms("Ada") == "Ada"
    f = font(40)
    assert [t for _, t in f.runs("محمد علي")] == ["\ufee3\ufea4\ufee4\ufeaa \ufecb\ufee0\ufef2"[::-1]]  # first word rightmost


def test_cut_to_width_keeps_what_fits_with_an_ellipsis():
    f = font(30)
    assert cut_to_width(f, "Bo", 200) == "Bo"
    cut = cut_to_width(f, "Ọ" * 300, 200)
    assert cut.endswith(ELLIPSIS) and cut.startswith("Ọ") and f.size(cut)[0] <= 200
    assert f.size(cut.replace(ELLIPSIS, "Ọ" + ELLIPSIS))[0] > 200  # the longest start that fits
    cut = cut_to_width(f, "ọ̀" * 100, 120)[:-1]  # (ọ̀ is two characters: ọ and a grave accent)
    assert cut and cut == "ọ̀" * (len(cut) // 2), cut  # never a letter cut from its accent


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_a_300_letter_name_is_cut_with_an_ellipsis_and_others_shown_whole(tmp_path, size):
    long_name = "Ọlálékan" + "A" * 292
    players = (long_name, NAMES["vietnamese"])
    k, _ = make_kiosk(tmp_path, start=False)
    ui = KioskUI(k, size, players=players)
    w, h = size
    shot(ui, "fonts-new-game-long-name", "new_game")
    assert any(t.endswith(ELLIPSIS) for t in ui.texts)
    ui.tap("Start")
    assert k.state.players == players
    for screen in ("main", "judge_adjust"):
        ui.overlay = None if screen == "main" else screen
        shot(ui, f"fonts-{screen}-long-name", screen)
        names = [t for t in ui.texts if t.startswith("Ọlálékan")]
        assert names and all(t.endswith(ELLIPSIS) and len(t) < 100 for t in names), names
        assert NAMES["vietnamese"] in ui.texts
    assert (ARTIFACTS / f"fonts-main-long-name-{w}x{h}.png").is_file()


def test_without_installed_faces_the_screen_draws_with_pygames_bundled_face():
    from kiosk.ui.fonts import TextFont

    bare = TextFont(30, paths=())
    assert bare.runs("Ada 12") == [(None, "Ada 12")]
    assert bare.render("Ada 12", True, (255, 255, 255)).get_width() == bare.size("Ada 12")[0] > 0

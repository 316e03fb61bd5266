"""The renderer's system fonts: TrueType / OpenType faces from Debian font packages and Google Fonts' WOFF files
(:mod:`kiosk.vision.synth.google_fonts`), drawn by file path.

Each face has a role: ``"training"`` faces may be drawn on frames that train the reader's models;
``"held-out"`` faces never are, so accuracy on them (``kiosk bench-vision --fonts held-out``) measures fonts
the reader has not learnt; ``"held-out-2"`` is a second held-out batch, chosen by a fixed rule from the faces'
declared names, weight, slant and character set alone and never drawn before the lead's one measurement
(``kiosk bench-vision --fonts held-out-2``: the six ``"held-out"`` faces had been looked at too often to give
a clean figure; kiosk/vision/models/README.md, "A second held-out batch"); ``"validation"`` faces are never trained on either, and are the only unfamiliar
faces on which the reader's thresholds and confidence rules are chosen (``kiosk bench-vision --fonts
validation``), so that the held-out figure is not a figure of what was tuned. The Google Fonts faces add
``"validation-2"`` (never trained on; choices may be made on them), ``"held-out-3"`` (a third batch, never
drawn before the lead's one measurement), ``"held-out-4"`` (a fourth, once the third had been looked at) and
``"held-out-5"`` (a fifth, once the fourth had been looked at), ``"held-out-6"`` (a sixth, taken out of
training in the ninth sitting before any of its frames was drawn for a network trained on the Google faces) and
``"held-out-7"`` (a seventh, taken out of training in the eleventh sitting, before any of its frames was drawn; the
value network ``values.onnx`` had them as training faces, the shipped letter network never drew them) and ``"held-out-8"``
(an eighth, taken out of training in the twelfth sitting before any of its frames was drawn and before the letter
network ``letters_*.onnx`` was trained), their roles given by a hash of the family group's name; display lettering
(pixel, dot, LED and scan-line faces, fourteenth session; hairline, outline, inline, stencil and techno faces,
fifteenth) is ``"display-training"`` (drawn only where a training
command asks for it: ``train squares --fonts display``), ``"display-validation"`` (never trained on; choices may be
made on them), ``"display-held-out"`` (never trained on, never drawn before its one measurement) and
``"display-held-out-2"`` (the held-out groups of a second display batch, fifteenth session, likewise) and
``"display-held-out-3"`` (those of a third, twenty-second sitting, with thin weights of never-trained text families).
Roles are given per **design family**: faces that are metric clones of one
design (FreeSans, Nimbus Sans and the renderer's built-in ``"sans"`` are all Helvetica) share a family, and
no family has faces in two roles, but for the thin weights of Google text families
(:data:`google_fonts.THIN_IDS`): a trained family's thin weight is ``display-training``, a never-trained one's
``display-validation`` or ``display-held-out-3``, so no family is both trained on and held out.

The renderer's five built-in fonts (:data:`kiosk.vision.synth.glyph_art.FONTS`, shipped as a glyph atlas)
are training fonts of the families in :data:`BUILTIN_FAMILIES`. A system face is drawn only when its file is
installed (``apt-get install`` the package named in the table; ``scripts/system-packages.txt`` lists them; the
Google Fonts faces by ``scripts/fetch_fonts.py``); :func:`present` tells which are.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from kiosk.vision.synth import google_fonts

TRAINING = "training"
HELD_OUT = "held-out"
VALIDATION = "validation"
HELD_OUT_2 = "held-out-2"
VALIDATION_2 = "validation-2"
HELD_OUT_3 = "held-out-3"
HELD_OUT_4 = "held-out-4"
HELD_OUT_5 = "held-out-5"
HELD_OUT_6 = "held-out-6"
HELD_OUT_7 = "held-out-7"
HELD_OUT_8 = "held-out-8"
DISPLAY_TRAINING = "display-training"
DISPLAY_VALIDATION = "display-validation"
DISPLAY_HELD_OUT = "display-held-out"
DISPLAY_HELD_OUT_2 = "display-held-out-2"
DISPLAY_HELD_OUT_3 = "display-held-out-3"
ROLES = (TRAINING, HELD_OUT, VALIDATION, HELD_OUT_2, VALIDATION_2, HELD_OUT_3, HELD_OUT_4, HELD_OUT_5, HELD_OUT_6,
         HELD_OUT_7, HELD_OUT_8, DISPLAY_TRAINING, DISPLAY_VALIDATION, DISPLAY_HELD_OUT, DISPLAY_HELD_OUT_2,
         DISPLAY_HELD_OUT_3)
NEVER_TRAINED = (HELD_OUT, VALIDATION, HELD_OUT_2, VALIDATION_2, HELD_OUT_3, HELD_OUT_4, HELD_OUT_5, HELD_OUT_6,
                 HELD_OUT_7, HELD_OUT_8, DISPLAY_VALIDATION, DISPLAY_HELD_OUT, DISPLAY_HELD_OUT_2, DISPLAY_HELD_OUT_3)
"""Roles never drawn on a training frame."""
NEVER_DRAWN_BY_TESTS = (HELD_OUT_2, HELD_OUT_3, HELD_OUT_4, HELD_OUT_5, HELD_OUT_6, HELD_OUT_7, HELD_OUT_8,
                        DISPLAY_HELD_OUT, DISPLAY_HELD_OUT_2, DISPLAY_HELD_OUT_3)
"""Roles whose faces no test draws: measured once, by ``kiosk bench-vision --fonts held-out-2`` (``held-out-3``,
``held-out-4``, ``held-out-5``, ``held-out-6``, ``held-out-7``, ``held-out-8``, ``display-held-out``,
``display-held-out-2``, ``display-held-out-3``)."""


@dataclass(frozen=True)
class SystemFont:
    """One face: its renderer name, design family, Debian package, file path and role."""

    name: str
    family: str
    package: str
    path: str
    role: str


_TT = "/usr/share/fonts/truetype"
_OT = "/usr/share/fonts/opentype"

DEBIAN_FONTS: tuple[SystemFont, ...] = (
    # ---- training faces
    SystemFont("liberation-sans-bold", "Arial (Liberation Sans)", "fonts-liberation",
               f"{_TT}/liberation/LiberationSans-Bold.ttf", TRAINING),
    SystemFont("liberation-sans", "Arial (Liberation Sans)", "fonts-liberation",
               f"{_TT}/liberation/LiberationSans-Regular.ttf", TRAINING),
    SystemFont("liberation-sans-narrow-bold", "Arial (Liberation Sans)", "fonts-liberation",
               f"{_TT}/liberation/LiberationSansNarrow-Bold.ttf", TRAINING),
    SystemFont("liberation-serif-bold", "Times", "fonts-liberation",
               f"{_TT}/liberation/LiberationSerif-Bold.ttf", TRAINING),
    SystemFont("liberation-mono-bold", "Courier", "fonts-liberation",
               f"{_TT}/liberation/LiberationMono-Bold.ttf", TRAINING),
    SystemFont("free-serif-bold", "Times", "fonts-freefont-ttf",
               f"{_TT}/freefont/FreeSerifBold.ttf", TRAINING),
    SystemFont("nimbus-sans-narrow-bold", "Helvetica", "fonts-urw-base35",
               f"{_OT}/urw-base35/NimbusSansNarrow-Bold.otf", TRAINING),
    SystemFont("urw-gothic-demi", "Avant Garde Gothic (URW Gothic)", "fonts-urw-base35",
               f"{_OT}/urw-base35/URWGothic-Demi.otf", TRAINING),
    SystemFont("c059-bold", "Century Schoolbook (C059)", "fonts-urw-base35",
               f"{_OT}/urw-base35/C059-Bold.otf", TRAINING),
    SystemFont("p052-bold", "Palatino (P052)", "fonts-urw-base35",
               f"{_OT}/urw-base35/P052-Bold.otf", TRAINING),
    SystemFont("open-sans-bold", "Open Sans", "fonts-open-sans",
               f"{_TT}/open-sans/OpenSans-Bold.ttf", TRAINING),
    SystemFont("open-sans-semibold", "Open Sans", "fonts-open-sans",
               f"{_TT}/open-sans/OpenSans-Semibold.ttf", TRAINING),
    SystemFont("roboto-bold", "Roboto", "fonts-roboto-unhinted",
               f"{_TT}/roboto/unhinted/RobotoTTF/Roboto-Bold.ttf", TRAINING),
    SystemFont("roboto-condensed-bold", "Roboto", "fonts-roboto-unhinted",
               f"{_TT}/roboto/unhinted/RobotoCondensed-Bold.ttf", TRAINING),
    SystemFont("go-bold", "Go", "fonts-go", "/usr/share/fonts/fonts-go/Go-Bold.ttf", TRAINING),
    SystemFont("go-mono-bold", "Go", "fonts-go", "/usr/share/fonts/fonts-go/Go-Mono-Bold.ttf", TRAINING),
    SystemFont("carlito-bold", "Calibri (Carlito)", "fonts-crosextra-carlito",
               f"{_TT}/crosextra/Carlito-Bold.ttf", TRAINING),
    SystemFont("comic-neue-bold", "Comic Neue", "fonts-comic-neue",
               f"{_OT}/comic-neue/ComicNeue-Bold.otf", TRAINING),
    SystemFont("league-spartan-bold", "League Spartan", "fonts-league-spartan",
               f"{_OT}/league-spartan/LeagueSpartan-Bold.otf", TRAINING),
    SystemFont("quicksand-bold", "Quicksand", "fonts-quicksand",
               f"{_TT}/quicksand/Quicksand-Bold.ttf", TRAINING),
    SystemFont("inter-bold", "Inter", "fonts-inter", f"{_OT}/inter/Inter-Bold.otf", TRAINING),
    SystemFont("andika-bold", "Andika", "fonts-sil-andika", f"{_TT}/andika/Andika-Bold.ttf", TRAINING),
    SystemFont("charis-bold", "Charter (Charis SIL)", "fonts-sil-charis", f"{_TT}/charis/CharisSIL-Bold.ttf",
               TRAINING),
    SystemFont("roboto-slab-bold", "Roboto Slab", "fonts-roboto-slab", f"{_OT}/roboto/slab/RobotoSlab-Bold.otf",
               TRAINING),
    SystemFont("libertine-bold", "Linux Libertine", "fonts-linuxlibertine",
               f"{_OT}/linux-libertine/LinLibertine_RB.otf", TRAINING),
    SystemFont("biolinum-bold", "Linux Biolinum", "fonts-linuxlibertine",
               f"{_OT}/linux-libertine/LinBiolinum_RB.otf", TRAINING),
    SystemFont("vollkorn-black", "Vollkorn", "fonts-vollkorn", f"{_TT}/vollkorn/Vollkorn-Black.ttf", TRAINING),
    SystemFont("vollkorn-bold", "Vollkorn", "fonts-vollkorn", f"{_TT}/vollkorn/Vollkorn-Bold.ttf", TRAINING),
    SystemFont("pt-serif-bold", "PT Serif", "fonts-paratype", f"{_TT}/paratype/PTF75F.ttf", TRAINING),
    SystemFont("pt-sans-bold", "PT Sans", "fonts-paratype", f"{_TT}/paratype/PTS75F.ttf", TRAINING),
    SystemFont("old-standard-bold", "Old Standard", "fonts-oldstandard",
               f"{_TT}/fonts-oldstandard/OldStandard-Bold.ttf", TRAINING),
    SystemFont("cabin-bold", "Cabin", "fonts-cabin", f"{_OT}/cabin/Cabin-Bold.otf", TRAINING),
    SystemFont("karla-bold", "Karla", "fonts-karla", f"{_TT}/karla/Karla-Bold.otf", TRAINING),
    SystemFont("dosis-bold", "Dosis", "fonts-dosis", f"{_OT}/dosis/Dosis-Bold.otf", TRAINING),
    SystemFont("b612-bold", "B612", "fonts-b612", f"{_OT}/b612/B612-Bold.otf", TRAINING),
    SystemFont("courier-prime-bold", "Courier", "fonts-courier-prime",
               f"{_OT}/courier-prime/Courier Prime Bold.otf", TRAINING),
    SystemFont("tuffy-bold", "Tuffy", "fonts-tuffy", f"{_TT}/tuffy/Tuffy_Bold.ttf", TRAINING),
    SystemFont("clear-sans-bold", "Clear Sans", "fonts-clear-sans", f"{_TT}/clear-sans/ClearSans-Bold.ttf",
               TRAINING),
    SystemFont("manrope-bold", "Manrope", "fonts-manrope", f"{_TT}/manrope/Manrope-Bold.ttf", TRAINING),
    SystemFont("play-bold", "Play", "fonts-play", f"{_TT}/play/Play-Bold.ttf", TRAINING),
    SystemFont("baskervald-bold", "Baskerville (Baskervald ADF)", "fonts-adf-baskervald",
               f"{_TT}/adf/BaskervaldADFStd-Bold.otf", TRAINING),
    SystemFont("baskervald-heavy", "Baskerville (Baskervald ADF)", "fonts-adf-baskervald",
               f"{_TT}/adf/BaskervaldADFStd-Heavy.otf", TRAINING),
    SystemFont("gillius-bold", "Gill Sans (Gillius ADF)", "fonts-adf-gillius", f"{_TT}/adf/GilliusADF-Bold.otf",
               TRAINING),
    SystemFont("universalis-bold", "Univers (Universalis ADF)", "fonts-adf-universalis",
               f"{_TT}/adf/UniversalisADFStd-Bold.otf", TRAINING),
    SystemFont("berenis-bold", "Berenis ADF", "fonts-adf-berenis", f"{_TT}/adf/BerenisADFPro-Bold.otf", TRAINING),
    SystemFont("gentium-bold", "Gentium", "fonts-sil-gentium-basic", f"{_TT}/gentium-basic/GenBasB.ttf", TRAINING),
    # Bold (or the heaviest upright text weight) of every Latin text family of a small Debian package in a list
    # drawn up without looking at any held-out face, having all of A-Z and ÄÖÜ; not decorative, script,
    # blackletter or uncial, and no family of another role (ADF Verana and Switzera are Bitstream Vera: left out)
    SystemFont("romande-demibold", "Romande ADF", "fonts-adf-romande", f"{_TT}/adf/RomandeADFStd-DemiBold.otf",
               TRAINING),
    SystemFont("libris-bold", "Libris ADF (Lydian)", "fonts-adf-libris", f"{_TT}/adf/LibrisADFStd-Bold.otf",
               TRAINING),
    SystemFont("irianis-bold", "Irianis ADF", "fonts-adf-irianis", f"{_TT}/adf/IrianisADFStd-Bold.otf", TRAINING),
    SystemFont("stix-bold", "Times", "fonts-stix", f"{_OT}/stix-word/STIX-Bold.otf", TRAINING),
    SystemFont("cmu-serif-bold", "Computer Modern", "fonts-cmu", f"{_TT}/cmu/cmunbx.ttf", TRAINING),
    SystemFont("cmu-sans-bold", "Computer Modern", "fonts-cmu", f"{_TT}/cmu/cmunsx.ttf", TRAINING),
    # Mined faces (issue 22, third sitting): the boldest upright text face with A-Z and ÄÖÜ of 21 small Debian
    # packages not yet in the table; uncial and decorative faces left out (Klaudia, Berenika, Okolaks, Lemonada).
    # The shipped network read each on 420 typical validation-style frames (seed 21); sorted from the worst read,
    # they went in turn to training and to validation, so both roles get faces the network did not know
    SystemFont("bebas-neue-bold", "Bebas Neue", "fonts-bebas-neue", f"{_OT}/bebas-neue/BebasNeue-Bold.otf", TRAINING),
    SystemFont("mononoki-bold", "Mononoki", "fonts-mononoki", f"{_TT}/mononoki/mononoki-Bold.ttf", TRAINING),
    SystemFont("anonymous-pro-bold", "Anonymous Pro", "fonts-anonymous-pro",
               f"{_TT}/anonymous-pro/Anonymous Pro B.ttf", TRAINING),
    SystemFont("caslon-black", "Caslon", "fonts-georgewilliams",
               f"{_TT}/fonts-georgewilliams/Caslon-Black.ttf", TRAINING),
    SystemFont("national-park-heavy", "National Park", "fonts-national-park",
               f"{_OT}/national-park/NationalPark-Heavy.otf", TRAINING),
    SystemFont("eurofurence-bold", "Eurofurence", "fonts-eurofurence", f"{_TT}/eurofurence/eurof75.ttf", TRAINING),
    SystemFont("elstob-extrabold", "Elstob", "fonts-elstob", f"{_OT}/elstob/ElstobD-ExtraBold.otf", TRAINING),
    SystemFont("opendyslexic-bold", "OpenDyslexic", "fonts-opendyslexic",
               f"{_OT}/opendyslexic/OpenDyslexic-Bold.otf", TRAINING),
    SystemFont("jura-bold", "Jura", "fonts-jura", f"{_OT}/jura/Jura-Bold.otf", TRAINING),
    # ---- held out: whole families never drawn on a training frame
    SystemFont("dejavu-sans-bold", "DejaVu (Bitstream Vera)", "fonts-dejavu-core",
               f"{_TT}/dejavu/DejaVuSans-Bold.ttf", HELD_OUT),
    SystemFont("dejavu-serif-bold", "DejaVu (Bitstream Vera)", "fonts-dejavu-core",
               f"{_TT}/dejavu/DejaVuSerif-Bold.ttf", HELD_OUT),
    SystemFont("cantarell-bold", "Cantarell", "fonts-cantarell",
               f"{_OT}/cantarell/Cantarell-Bold.otf", HELD_OUT),
    SystemFont("lato-bold", "Lato", "fonts-lato", f"{_TT}/lato/Lato-Bold.ttf", HELD_OUT),
    SystemFont("urw-bookman-demi", "Bookman (URW Bookman)", "fonts-urw-base35",
               f"{_OT}/urw-base35/URWBookman-Demi.otf", HELD_OUT),
    SystemFont("caladea-bold", "Cambria (Caladea)", "fonts-crosextra-caladea",
               f"{_TT}/crosextra/Caladea-Bold.ttf", HELD_OUT),
    # ---- validation: whole families in neither role above, never trained on; the reader's confidence rules
    # are chosen on these alone (heavy and wide serifs like the held-out Bookman, wide and geometric sans)
    SystemFont("tribun-extrabold", "Tribun ADF", "fonts-adf-tribun", f"{_TT}/adf/TribunADFStd-ExtraBold.otf",
               VALIDATION),
    SystemFont("averia-serif-bold", "Averia Serif", "fonts-averia-serif-gwf",
               f"{_TT}/averia-gwf/AveriaSerifGWF-Bold.ttf", VALIDATION),
    SystemFont("cardo-bold", "Cardo (Bembo)", "fonts-cardo", f"{_TT}/cardo/Cardob101.ttf", VALIDATION),
    SystemFont("accanthis-bold", "Accanthis ADF (Galliard)", "fonts-adf-accanthis",
               f"{_TT}/adf/AccanthisADFStd-Bold.otf", VALIDATION),
    SystemFont("sora-extrabold", "Sora", "fonts-sora", f"{_OT}/sora/Sora-ExtraBold.otf", VALIDATION),
    SystemFont("tiresias-infofont-bold", "Tiresias", "fonts-tiresias",
               f"{_TT}/tiresias/tiresias_infofont_bold.ttf", VALIDATION),
    SystemFont("beteckna-bold", "Futura (Beteckna)", "fonts-beteckna", f"{_TT}/beteckna/BetecknaGS-Bold.ttf",
               VALIDATION),
    SystemFont("oxygen-sans-bold", "Oxygen", "fonts-oxygen", f"{_TT}/oxygen/Oxygen-Sans-Bold.ttf", VALIDATION),
    # mined faces (see the training list's note): the other half, by turns
    SystemFont("yanone-kaffeesatz-bold", "Yanone Kaffeesatz", "fonts-yanone-kaffeesatz",
               f"{_OT}/yanone-kaffeesatz/YanoneKaffeesatz-Bold.otf", VALIDATION),
    SystemFont("jetbrains-mono-extrabold", "JetBrains Mono", "fonts-jetbrains-mono",
               f"{_TT}/jetbrains-mono/JetBrainsMono-ExtraBold.ttf", VALIDATION),
    SystemFont("fira-code-bold", "Fira", "fonts-firacode", f"{_TT}/firacode/FiraCode-Bold.ttf", VALIDATION),
    SystemFont("gfs-didot-bold", "Didot (GFS Didot)", "fonts-gfs-didot", f"{_OT}/didot/GFSDidotBold.otf", VALIDATION),
    SystemFont("junicode-bold", "Junicode", "fonts-junicode", f"{_OT}/junicode/JunicodeTwoBeta-Bold.otf", VALIDATION),
    SystemFont("yrsa-bold", "Yrsa", "fonts-yrsa-rasa", f"{_TT}/fonts-yrsa-rasa/Yrsa-Bold.ttf", VALIDATION),
    SystemFont("comfortaa-bold", "Comfortaa", "fonts-comfortaa", f"{_TT}/comfortaa/Comfortaa-Bold.ttf", VALIDATION),
    SystemFont("wine-tahoma-bold", "Tahoma (Wine Tahoma)", "fonts-wine",
               "/usr/share/wine/fonts/tahomabd.ttf", VALIDATION),
    # ---- held out, second batch (issue 22, fourth sitting): never drawn on any frame or image before the lead's
    # one measurement. The rule, fixed before any face was chosen: the boldest upright text face (fontconfig
    # weight >= 180, slant 0) of each Latin design family of a Debian font package not yet in this table, having
    # all of A-Z and ÄÖÜ (fontconfig's charset); no decorative, script, handwriting, blackletter, uncial, pixel,
    # stencil, OCR or icon face, and no family (or clone / derivative of one) of another role. Chosen from the
    # packages' descriptions and documents and the fonts' declared names, weight, slant and charset alone
    # (kiosk/vision/models/README.md, "A second held-out batch", lists every package left out and why)
    SystemFont("fantasque-sans-mono-bold", "Fantasque Sans Mono", "fonts-fantasque-sans",
               f"{_TT}/fantasque-sans/Normal/TTF/FantasqueSansMono-Bold.ttf", HELD_OUT_2),
    SystemFont("gfs-neohellenic-bold", "GFS Neohellenic", "fonts-gfs-neohellenic",
               f"{_OT}/neohellenic/GFSNeohellenicBold.otf", HELD_OUT_2),
    SystemFont("league-mono-extrabold", "League Mono", "fonts-league-mono",
               f"{_OT}/league-mono/LeagueMono-ExtraBold.otf", HELD_OUT_2),
    SystemFont("arapey-black", "Arapey", "fonts-arapey", f"{_OT}/arapey/Arapey-Black.otf", HELD_OUT_2),
    SystemFont("ikarius-bold", "Ikarius ADF", "fonts-adf-ikarius", f"{_TT}/adf/IkariusADFStd-Bold.otf", HELD_OUT_2),
    SystemFont("oldania-bold", "Oldania ADF", "fonts-adf-oldania", f"{_TT}/adf/OldaniaADFStd-Bold.otf", HELD_OUT_2),
    SystemFont("essays1743-bold", "Essays 1743", "fonts-essays1743",
               f"{_TT}/essays1743/Essays1743-Bold.ttf", HELD_OUT_2),
    SystemFont("galatia-bold", "Galatia SIL", "fonts-sil-galatia", f"{_TT}/galatia/GalSILB.ttf", HELD_OUT_2),
    SystemFont("jara-bold", "Jara", "fonts-linex", f"{_TT}/linex/Jara_Bold.ttf", HELD_OUT_2),
    SystemFont("quercus-bold", "Quercus", "fonts-linex", f"{_TT}/linex/Quercus_Bold.ttf", HELD_OUT_2),
    SystemFont("babel-unicode-bold", "BABEL Unicode", "fonts-linex", f"{_TT}/linex/BABEbold.ttf", HELD_OUT_2),
    SystemFont("agave-bold", "Agave", "fonts-agave", f"{_TT}/agave/agave-b-autohinted.ttf", HELD_OUT_2),
    SystemFont("hermit-bold", "Hermit", "fonts-hermit", f"{_TT}/hermit/Hermit-bold.otf", HELD_OUT_2),
    SystemFont("millimetre-extrablack", "Millimetre", "fonts-millimetre",
               f"{_OT}/millimetre/millimetreA Extrablack 01.otf", HELD_OUT_2),
    SystemFont("dustismo-bold", "Dustismo", "fonts-dustin", f"{_TT}/dustin/dustismo_bold.ttf", HELD_OUT_2),
    SystemFont("dustismo-roman-bold", "Dustismo Roman", "fonts-dustin", f"{_TT}/dustin/Dustismo_Roman_Bold.ttf",
               HELD_OUT_2),
)
"""The faces of Debian font packages (a data table; see the module doc)."""

GOOGLE_FONTS: tuple[SystemFont, ...] = tuple(
    SystemFont(r["name"], f"{r['group']} (Google Fonts)", f"npm @fontsource/{r['id']}",
               str(google_fonts.font_dir() / f"{r['name']}.woff"), r["role"])
    for r in google_fonts.rows())
"""The Google Fonts faces of :mod:`kiosk.vision.synth.google_fonts` (fetched by ``scripts/fetch_fonts.py``); the
folder is read once, when this module is imported."""

SYSTEM_FONTS = DEBIAN_FONTS + GOOGLE_FONTS
"""Every system face the renderer knows: the Debian faces, then the Google Fonts faces."""

BUILTIN_FAMILIES = {"sans": "Helvetica", "hershey-simplex": "Hershey", "hershey-duplex": "Hershey",
                    "hershey-triplex": "Hershey", "hershey-complex": "Hershey"}
"""Design family of each built-in font of :data:`kiosk.vision.synth.glyph_art.FONTS` (all training fonts)."""

BY_NAME = {f.name: f for f in SYSTEM_FONTS}


class FontMissing(ValueError):
    """A system face's file is not installed (the message names the Debian package to install)."""


def font_file(name: str) -> str:
    """The file path of system face ``name``.

    Raises:
        ValueError: not a system face.
        FontMissing: its file is not installed.
    """
    try:
        f = BY_NAME[name]
    except KeyError:
        raise ValueError(f"unknown system font {name!r} (known: {', '.join(BY_NAME)})") from None
    if not os.path.isfile(f.path):
        raise FontMissing(f"font {name!r}: {f.path} is not installed ({install_hint((f,))})")
    return f.path


def install_hint(faces: tuple[SystemFont, ...] | list[SystemFont]) -> str:
    """How to install ``faces``: the ``apt-get install`` line of their Debian packages and, for Google Fonts
    faces, the fetch script and the folder it fills (looked in: :func:`google_fonts.font_dir`)."""
    debian = sorted({f.package for f in faces if not f.package.startswith("npm ")})
    parts = [f"apt-get install {' '.join(debian)}"] if debian else []
    if any(f.package.startswith("npm ") for f in faces):
        parts.append(f"python scripts/fetch_fonts.py, into {google_fonts.font_dir()} ($KIOSK_FONT_DIR)")
    return "; ".join(parts)


def present(role: str | None = None) -> tuple[str, ...]:
    """Names of the system faces whose files are installed, in table order; only those of ``role`` when given.

    Raises:
        ValueError: unknown role.
    """
    if role is not None and role not in ROLES:
        raise ValueError(f"unknown font role {role!r} (known: {', '.join(ROLES)})")
    return tuple(f.name for f in SYSTEM_FONTS if (role is None or f.role == role) and os.path.isfile(f.path))


def missing(role: str | None = None) -> tuple[SystemFont, ...]:
    """The system faces (of ``role`` when given) whose files are not installed."""
    return tuple(f for f in SYSTEM_FONTS if (role is None or f.role == role) and not os.path.isfile(f.path))


def family(name: str) -> str:
    """The design family of a built-in or system font name.

    Raises:
        ValueError: unknown font name.
    """
    if name in BUILTIN_FAMILIES:
        return BUILTIN_FAMILIES[name]
    if name in BY_NAME:
        return BY_NAME[name].family
    raise ValueError(f"unknown tile font {name!r}")

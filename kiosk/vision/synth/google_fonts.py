"""Google Fonts faces for the synthetic renderer: a table (``google_fonts.csv`` beside this module) and a folder.

The table is written by ``scripts/google_fonts_table.py`` from Google's own font metadata by a fixed rule (text
categories only, the weight nearest 700, whole groups of families in one role chosen by a hash; see that
script), and the faces are fetched by ``scripts/fetch_fonts.py`` from the npm registry (Fontsource's WOFF
files, one per face) into :func:`font_dir`. Roles: ``training``, ``validation-2`` (never trained on; where
choices may be made), ``held-out-3`` (never trained on, never drawn before the one measurement),
``held-out-4`` (a fourth batch, taken from the training groups after held-out-3 had been looked at; never trained
on by a shipped model, never drawn before its one measurement) and ``held-out-5`` (a fifth, taken from the
training groups the same way after held-out-4 had been looked at; never drawn before its one measurement, when
the value network then shipped had them as training faces; the one shipped since the eighth session never had),
``held-out-6`` (a sixth, taken from the training groups in the ninth session before any network was trained
on the Google faces; the value networks had them as training faces) and ``held-out-7`` (a seventh, taken from the
training groups in the eleventh session before any of its frames was drawn; the value network ``values.onnx``
had them as training faces, the shipped letter network never drew them) and ``held-out-8`` (an eighth, taken from the
training groups in the twelfth session before any of its frames was drawn and before the letter network
``letters_*.onnx`` was trained on the Google training faces). Display lettering (:data:`DISPLAY_IDS`, added in
the fourteenth session) takes ``display-training``, ``display-validation`` or ``display-held-out`` by a hash of
its group (:func:`display_role_of`); a second batch (:data:`DISPLAY_IDS_2`, fifteenth session) the same, but its
held-out groups are ``display-held-out-2``, a batch never drawn before its one measurement; a third
(:data:`DISPLAY_IDS_3`, twenty-second sitting) likewise with ``display-held-out-3``, which also takes some of the
thin weights (100 or 200) of text families already in the table (:data:`THIN_IDS`, :func:`thin_role_of`: a
training family's thin weight is ``display-training``, any other's ``display-held-out-3`` or
``display-validation``, never trained on).
The kiosk never needs these files; a machine without them renders as before.
"""

from __future__ import annotations

import csv
import hashlib
import os
from pathlib import Path
from typing import TextIO

TEXT_CATEGORIES = ("sans-serif", "serif", "monospace")
LEFT_OUT_WORDS = {
    # held out (first batch): DejaVu / Bitstream Vera, Cantarell, Lato, Bookman, Caladea
    "dejavu", "bitstream", "vera", "cantarell", "lato", "bookman", "caladea",
    # validation: Tribun, Averia, Cardo, Accanthis, Sora, Tiresias, Beteckna (Futura), Oxygen, Yanone,
    # JetBrains, Fira, GFS (Didot, Neohellenic), Junicode, Yrsa and its sibling Rasa, Comfortaa, Tahoma
    "tribun", "averia", "cardo", "accanthis", "sora", "tiresias", "beteckna", "futura", "oxygen", "yanone",
    "jetbrains", "fira", "gfs", "junicode", "yrsa", "rasa", "comfortaa", "tahoma",
    # held out (second batch)
    "fantasque", "league", "arapey", "ikarius", "oldania", "essays", "galatia", "jara", "quercus", "babel",
    "agave", "hermit", "millimetre", "dustismo",
}
TRAINED_WORDS = {
    # trained families and clones of them (Arimo / Tinos / Cousine: Liberation's designs; Noto Sans: Open Sans)
    "liberation", "arimo", "tinos", "cousine", "free", "nimbus", "urw", "c059", "p052", "open", "noto", "roboto",
    "go", "carlito", "comic", "quicksand", "inter", "andika", "charis", "linux", "vollkorn", "pt", "old",
    "cabin", "karla", "dosis", "b612", "courier", "tuffy", "clear", "manrope", "play", "baskervald",
    "baskervville", "libre", "gillius", "universalis", "berenis", "gentium", "romande", "libris", "irianis",
    "stix", "cmu", "computer", "bebas", "mononoki", "anonymous", "caslon", "national", "eurofurence", "elstob",
    "opendyslexic", "jura", "karmilla", "century", "palatino", "helvetica", "times", "avant",
}
ROLE_BY_DIGIT = {0: "held-out-3", 1: "validation-2", 2: "held-out-4", 3: "held-out-5", 4: "held-out-6",
                 5: "held-out-7", 6: "held-out-8"}
"""Role of a group by the first byte of the SHA-256 of its key, mod 10 (others: training)."""
DISPLAY_IDS = ("bitcount-grid-double", "bitcount-grid-single", "bitcount-prop-double", "bitcount-prop-single",
               "codystar", "dotgothic16", "handjet", "jersey-10", "jersey-15", "micro-5", "nova-mono",
               "pixelify-sans", "press-start-2p", "share-tech-mono", "silkscreen", "sixtyfour", "tiny5", "vt323",
               "workbench")
"""Display lettering (Fontsource ids): faces built from pixels, dots, LED elements or scan lines, or drawn as
terminal lettering, chosen by their look in the fourteenth sitting before any was read (every capital and ÄÖÜ
drawn as a letter, not inverted, not filled with texture, one case). Doto, the dot-matrix face of ``held-out-5``,
is not among them; nor Zen Dots (its group ``zen`` is ``held-out-8``'s)."""
DISPLAY_IDS_2 = ("aldrich", "allerta-stencil", "anta", "audiowide", "big-shoulders-inline", "big-shoulders-stencil",
                 "black-ops-one", "bungee-hairline", "bungee-inline", "bungee-outline", "electrolize", "gruppo",
                 "iceberg", "iceland", "kumar-one-outline", "londrina-outline", "michroma", "monoton", "nixie-one",
                 "odibee-sans", "oxanium", "poiret-one", "ribeye-marrow", "sirin-stencil", "stardos-stencil",
                 "tektur", "text-me-one", "tilt-neon", "tourney", "train-one", "wallpoet")
"""A second batch of display lettering (Fontsource ids), chosen by the same rule in the fifteenth session, before
any was read, to widen the kinds trained on and to give a fresh held-out batch: dotted and dot-matrix, LED and
segment, pixel, hairline and outline (hollow), inline, stencil, striped, terminal and squared techno lettering
were looked for among Google's display and monospace families. No new dotted, LED or pixel face passed the rule
(the others are in groups of the table already), so this batch is hairline, outline, inline, stencil, striped,
neon-tube and squared techno lettering. No group of it is a group of the table's other rows."""
DISPLAY_IDS_3 = ("aboreto", "antic-didone", "bahianita", "bruno-ace", "bubbler-one", "buda", "emblema-one",
                 "fascinate-inline", "federo", "foldit", "geo", "goldman", "homenaje", "italiana", "jockey-one",
                 "julius-sans-one", "karantina", "kdam-thmor-pro", "krona-one", "medula-one", "megrim", "moirai-one",
                 "new-amsterdam", "offside", "pompiere", "protest-guerrilla", "rationale", "revalia", "righteous",
                 "six-caps", "squada-one", "staatliches", "stalinist-one", "stint-ultra-condensed",
                 "stint-ultra-expanded", "strait", "turret-road", "unica-one", "vina-sans", "wire-one")
"""A third batch of display lettering (Fontsource ids), chosen by the same rule in the twenty-second sitting from
contact sheets, before any was read, looking for hairline and thin, outline and hollow, inline, stencil, neon and
condensed display lettering among Google's families not in the table (kiosk/vision/models/README.md, "A third
batch of display lettering"). No group of it is a group of the table's other rows."""
THIN_IDS = ("advent-pro", "afacad-flux", "alegreya-sans", "alumni-sans", "barlow-condensed", "biorhyme", "bitter",
            "dm-sans", "dosis", "epilogue", "exo-2", "fraunces", "geist", "genos", "ibm-plex-sans", "josefin-sans",
            "jost", "kanit", "lexend-deca", "montagu-slab", "montserrat", "nunito", "oswald", "outfit", "overpass",
            "poppins", "public-sans", "raleway", "roboto-condensed", "saira-condensed", "sofia-sans-condensed",
            "titillium-web", "tomorrow", "truculenta", "unbounded", "urbanist", "work-sans", "ysabeau")
"""Text families of the table (Fontsource ids) whose thin weight (:func:`thin_weight_of`) is a row of its own:
hairline lettering, chosen from contact sheets in the twenty-second sitting with the third display batch. Its
role follows the family's (:func:`thin_role_of`), so no family is both trained on and held out."""
THIN_ROLE_BY_DIGIT = {0: "display-held-out-3", 1: "display-validation"}
"""Role of the thin weight of a never-trained group by the second byte of the SHA-256 of its key, mod 2 (the first
byte chose the group's text role)."""
DISPLAY_ROLE_BY_DIGIT = {0: "display-training", 1: "display-held-out", 2: "display-validation"}
"""Role of a display group by the first byte of the SHA-256 of its key, mod 3."""
DISPLAY_ROLE_BY_DIGIT_2 = {0: "display-training", 1: "display-held-out-2", 2: "display-validation"}
"""The same for the groups of :data:`DISPLAY_IDS_2`: their held-out groups are a batch of their own."""
DISPLAY_ROLE_BY_DIGIT_3 = {0: "display-training", 1: "display-held-out-3", 2: "display-validation"}
"""The same for the groups of :data:`DISPLAY_IDS_3`: their held-out groups are a batch of their own."""
DISPLAY_BATCHES = ((DISPLAY_IDS, DISPLAY_ROLE_BY_DIGIT), (DISPLAY_IDS_2, DISPLAY_ROLE_BY_DIGIT_2),
                   (DISPLAY_IDS_3, DISPLAY_ROLE_BY_DIGIT_3))
"""The display batches in order: (their Fontsource ids, role by hash digit)."""
PER_GROUP = 4
"""At most this many families of a group, the first by SHA-256 of their ids."""


def digest(text: str) -> bytes:
    """SHA-256 of ``text`` (UTF-8)."""
    return hashlib.sha256(text.encode()).digest()


def weight_of(weights: list[int | str], lightest: int = 600, heaviest: int = 900) -> int | None:
    """The weight nearest 700 among ``lightest``-``heaviest`` (a tie goes to the heavier), or None."""
    ok = [int(w) for w in weights if str(w).isdigit() and lightest <= int(w) <= heaviest]
    return min(ok, key=lambda w: (abs(w - 700), -w)) if ok else None


def display_role_of(group: str, batch: int = 1) -> str:
    """The role of a group of display families of batch 1 (:data:`DISPLAY_IDS`), 2 or 3 (:data:`DISPLAY_IDS_3`): the
    batch's role by the first byte of its key's SHA-256, mod 3 (:data:`DISPLAY_BATCHES`).

    Raises:
        ValueError: no such batch.
    """
    if not 1 <= batch <= len(DISPLAY_BATCHES):
        raise ValueError(f"display batch {batch}: one of 1-{len(DISPLAY_BATCHES)}")
    return DISPLAY_BATCHES[batch - 1][1][digest(group)[0] % 3]


def display_batch_of(fid: str) -> int | None:
    """The display batch (1, 2, 3) naming Fontsource id ``fid``, or None for a face that is no display lettering."""
    return next((i for i, (ids, _) in enumerate(DISPLAY_BATCHES, 1) if fid in ids), None)


def display_weight_of(weights: list[int | str]) -> int | None:
    """The weight nearest 700 of any a display face has (a tie goes to the heavier), or None: :func:`weight_of`
    over every CSS weight, 1-1000 (most display faces come in one weight, 400)."""
    return weight_of(weights, 1, 1000)


def thin_weight_of(weights: list[int | str]) -> int | None:
    """The thin weight of a family: 100 if it has it, else 200, else None."""
    return min((int(w) for w in weights if str(w) in ("100", "200")), default=None)


def thin_role_of(group: str, role: str) -> str:
    """The role of a thin weight (:data:`THIN_IDS`) of a family of ``group`` whose table rows have ``role``:
    ``display-training`` for a training group, else ``display-held-out-3`` or ``display-validation`` by
    :data:`THIN_ROLE_BY_DIGIT` (never a training role)."""
    if role == "training":
        return "display-training"
    return THIN_ROLE_BY_DIGIT[digest(group)[1] % 2]


def is_thin(row: dict[str, str]) -> bool:
    """Whether a table row is the thin weight of a text family (:data:`THIN_IDS`), not the family's text row."""
    return row["id"] in THIN_IDS and int(row["weight"]) <= 200


def role_of(group: str) -> str | None:
    """The role of a group of families (the first word of their names, lower case), or None when left out.

    Left out: a group naming a family of the held-out, validation or second held-out roles (:data:`LEFT_OUT_WORDS`);
    training: one naming a training family or a clone of one (:data:`TRAINED_WORDS`); else by :data:`ROLE_BY_DIGIT`.
    """
    if group in LEFT_OUT_WORDS:
        return None
    if group in TRAINED_WORDS:
        return "training"
    return ROLE_BY_DIGIT.get(digest(group)[0] % 10, "training")


TABLE = Path(__file__).with_name("google_fonts.csv")
"""The table (one row a face, the columns :data:`COLUMNS`)."""
COLUMNS = ("name", "family", "group", "category", "id", "weight", "role", "version", "sha256")
"""The table's columns; all but ``version`` and ``sha256`` (filled when the face is pinned) must be given."""


def font_dir() -> Path:
    """The folder holding the fetched faces: ``$KIOSK_FONT_DIR``, else ``~/.cache/kiosk/fonts``."""
    return Path(os.environ.get("KIOSK_FONT_DIR") or Path.home() / ".cache" / "kiosk" / "fonts")


def rows(path: Path | None = None) -> list[dict[str, str]]:
    """The rows of the table at ``path`` (default :data:`TABLE`), in file order (an empty list when the file is
    absent).

    Raises:
        ValueError: a row lacks a column (the message names the line).
    """
    path = TABLE if path is None else path
    if not path.is_file():
        return []
    with open(path, encoding="utf-8", newline="") as fh:
        out = list(csv.DictReader(fh))
    needed = COLUMNS[:-2]
    for i, r in enumerate(out, 2):
        if any(not r.get(k) for k in needed):
            raise ValueError(f"{path}:{i}: a row lacks one of {', '.join(needed)}")
    return out


def write(table: list[dict[str, str]], fh: TextIO) -> None:
    """Write ``table`` (rows of :data:`COLUMNS`) as CSV to the text stream ``fh``."""
    w = csv.DictWriter(fh, fieldnames=COLUMNS, lineterminator="\n")
    w.writeheader()
    w.writerows(table)

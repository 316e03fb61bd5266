"""Write ``kiosk/vision/synth/google_fonts.csv``: the Google Fonts families the renderer may draw, with a role each.

Input: ``data/google-fonts-v1.json`` of the npm package ``google-font-metadata`` (version 6.0.8; ``npm pack
google-font-metadata@6.0.8`` and untar it). The rule, fixed before any face of these families was drawn
(kiosk/vision/models/README.md, "Google Fonts faces and a third held-out batch"):

* a family of Google's categories ``sans-serif``, ``serif`` or ``monospace`` (not ``display`` or ``handwriting``)
  with the ``latin`` subset (U+0000-00FF: A-Z and ÄÖÜ) and an upright style, whose name is not an icon or
  symbol face; its weight nearest 700 among 600-900 (a tie goes to the heavier); families without one are out;
* families are grouped by the first word of their name (``IBM Plex Sans`` and ``IBM Plex Mono`` are one group,
  as are the Noto families), and a whole group takes one role;
* a group whose first word names a family of the held-out, validation or second held-out roles of
  :mod:`kiosk.vision.synth.fonts` (or a clone of one) is left out; one naming a training family (or a clone
  of one) is training;
* every other group takes its role from the SHA-256 of its key: the first byte mod 10 is 0 for
  ``held-out-3``, 1 for ``validation-2``, 2 for ``held-out-4`` (added once held-out-3 had been looked at; those
  groups were training before, and no shipped model was trained on them), 3 for ``held-out-5`` (added once
  held-out-4 had been looked at; training before: the value network of the sixth sitting was trained on them,
  the one shipped since the eighth sitting was not,
  kiosk/vision/models/README.md), 4 for ``held-out-6`` (added in the ninth sitting, before a network was
  trained on the Google faces; training before, drawn only by the value networks), 5 for ``held-out-7``
  (added in the eleventh sitting, before any of its frames was drawn; training before: the value network
  ``values.onnx`` was trained on them, the shipped letter network never drew them), 6 for ``held-out-8``
  (added in the twelfth sitting, before any of its frames was drawn and before the letter network
  ``letters_*.onnx`` was trained on the Google training faces), else ``training``;
* at most 4 families of a group, the first by SHA-256 of their ids, so no superfamily outweighs the others;
* the thin weight (100, else 200) of each family of ``google_fonts.THIN_IDS`` that has a row by now, a row of
  its own (twenty-second sitting): ``display-training`` when the family's rows are ``training``, else
  ``display-held-out-3`` or ``display-validation`` by the second byte of its group's SHA-256 mod 2
  (``google_fonts.thin_role_of``);
* then the display lettering of ``google_fonts.DISPLAY_IDS`` (pixel, dot, LED and scan-line faces, fourteenth
  session), ``google_fonts.DISPLAY_IDS_2`` (a second batch, fifteenth session) and ``google_fonts.DISPLAY_IDS_3``
  (a third, twenty-second sitting), whatever Google's category, at the weight nearest 700 of any they have, each
  group's role ``display-training``, ``display-held-out`` (the second batch: ``display-held-out-2``, the third
  ``display-held-out-3``) or ``display-validation`` by the first byte of its SHA-256 mod 3
  (``google_fonts.display_role_of``); a display group whose key the text rows (or the left-out and trained
  words, or an earlier display batch) already use is left out.

Usage: ``python scripts/google_fonts_table.py google-fonts-v1.json > kiosk/vision/synth/google_fonts.csv``
(``--pins OLD.csv`` keeps the package versions and file hashes of an earlier table).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from kiosk.vision.synth import google_fonts  # noqa: E402
from kiosk.vision.synth.google_fonts import (  # noqa: E402
    PER_GROUP,
    TEXT_CATEGORIES,
    digest,
    display_role_of,
    display_weight_of,
    role_of,
    thin_role_of,
    thin_weight_of,
    weight_of,
)


def rows(meta: dict) -> list[dict[str, str]]:
    """The table's rows (dicts of the CSV's columns), sorted by id."""
    groups: dict[str, list[tuple[str, dict, int]]] = {}
    for fid, f in meta.items():
        weight = weight_of(f["weights"])
        name = f["family"]
        if (f["category"] not in TEXT_CATEGORIES or "latin" not in f["subsets"] or "normal" not in f["styles"]
                or weight is None or any(w in name.lower() for w in ("icon", "symbol", "emoji"))):
            continue
        groups.setdefault(name.split()[0].lower(), []).append((fid, f, weight))
    out = []
    for key, members in groups.items():
        role = role_of(key)
        if role is None:
            continue
        for fid, f, weight in sorted(members, key=lambda m: digest(m[0]))[:PER_GROUP]:
            out.append({"name": f"g-{fid}-{weight}", "family": f["family"], "group": key, "category": f["category"],
                        "id": fid, "weight": str(weight), "role": role, "version": "", "sha256": ""})
    text = {r["id"]: r for r in out}
    for fid in google_fonts.THIN_IDS:       # thin weights of text families: the family's side of training
        r, f = text.get(fid), meta.get(fid)
        weight = thin_weight_of(f["weights"]) if r and f else None
        if r is None or weight is None:
            continue
        out.append({**r, "name": f"g-{fid}-{weight}", "weight": str(weight),
                    "role": thin_role_of(r["group"], r["role"])})
    taken = {r["group"] for r in out} | set(google_fonts.LEFT_OUT_WORDS) | set(google_fonts.TRAINED_WORDS)
    for batch, (ids, _) in enumerate(google_fonts.DISPLAY_BATCHES, 1):
        for fid in ids:
            f = meta.get(fid)
            weight = display_weight_of(f["weights"]) if f else None
            if f is None or weight is None or "latin" not in f["subsets"] or "normal" not in f["styles"]:
                continue
            key = f["family"].split()[0].lower()
            if key in taken:        # a display face never joins a group of the text table's
                continue
            out.append({"name": f"g-{fid}-{weight}", "family": f["family"], "group": key,
                        "category": f["category"], "id": fid, "weight": str(weight),
                        "role": display_role_of(key, batch), "version": "", "sha256": ""})
        taken |= {r["group"] for r in out}    # a later batch never joins an earlier one's group either
    return sorted(out, key=lambda r: r["name"])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("metadata", help="google-font-metadata's data/google-fonts-v1.json")
    ap.add_argument("--pins", help="an earlier table whose version and sha256 columns are kept")
    args = ap.parse_args(argv)
    try:
        with open(args.metadata, encoding="utf-8") as fh:
            table = rows(json.load(fh))
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        print(f"error: {args.metadata}: not google-font-metadata's google-fonts-v1.json "
              f"({type(exc).__name__}: {exc})", file=sys.stderr)
        return 2
    if not table:
        print(f"error: {args.metadata}: no family of the text categories in it", file=sys.stderr)
        return 2
    if args.pins:
        pins = {r["name"]: r for r in google_fonts.rows(Path(args.pins))}
        for r in table:
            if r["name"] in pins:
                r["version"], r["sha256"] = pins[r["name"]]["version"], pins[r["name"]]["sha256"]
    google_fonts.write(table, sys.stdout)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Fetch the Google Fonts faces of ``kiosk/vision/synth/google_fonts.csv`` from the npm registry (Fontsource).

Each face is one file, ``files/ID-latin-WEIGHT-normal.woff`` of the package ``@fontsource/ID``, stored as
``NAME.woff`` in the font folder (``$KIOSK_FONT_DIR``, else ``~/.cache/kiosk/fonts``). A row with a version and a
SHA-256 is fetched at that version and checked against it (a mismatch is an error naming the face); a row
without is fetched at the package's latest version, and ``--pin`` writes the version and hash back to the table.
Only the synthetic renderer uses these faces (training and benchmarking the square network); the kiosk never
needs them.

With ``--pin``, a face Fontsource does not publish under the table's id (HTTP 404), or whose character map
lacks a letter or digit of the tile sets (:data:`NEEDED`, read with fontTools), is dropped from the table and named.

Usage: ``python scripts/fetch_fonts.py [--role training|validation-2|held-out-3|held-out-4|held-out-5|held-out-6|held-out-7|held-out-8|display-training|display-validation|display-held-out|display-held-out-2|display-held-out-3] [--pin] [--jobs 8]``
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import sys
import tarfile
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from kiosk.vision.synth import google_fonts  # noqa: E402

REGISTRY = "https://registry.npmjs.org"
NEEDED = "ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÜ0123456789"
"""Characters a face's character map must hold (the tile sets' letters and the tiles' digits)."""


def lacking(path: Path) -> str:
    """The characters of :data:`NEEDED` that the font file's character map lacks (fontTools: the `train` extra)."""
    from fontTools.ttLib import TTFont

    with TTFont(str(path), lazy=True) as font:
        cmap = font.getBestCmap() or {}
    return "".join(c for c in NEEDED if ord(c) not in cmap)


def _get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=60) as r:  # noqa: S310 - the npm registry's https address
        return r.read()


def fetch(row: dict[str, str], folder: Path) -> tuple[str, str, str]:
    """Fetch one face into ``folder``; (name, version, sha256).

    Raises:
        RuntimeError: the package lacks the file, or its hash differs from the pinned one (named).
    """
    pkg = f"@fontsource/{row['id']}"
    info = json.loads(_get(f"{REGISTRY}/{pkg.replace('/', '%2f')}/{row['version'] or 'latest'}"))
    member = f"package/files/{row['id']}-latin-{row['weight']}-normal.woff"
    with tarfile.open(fileobj=io.BytesIO(_get(info["dist"]["tarball"])), mode="r:gz") as tar:
        try:
            data = tar.extractfile(member).read()  # type: ignore[union-attr]
        except (KeyError, AttributeError):
            raise RuntimeError(f"{row['name']}: {pkg}@{info['version']} has no {member}") from None
    digest = hashlib.sha256(data).hexdigest()
    if row["sha256"] and digest != row["sha256"]:
        raise RuntimeError(f"{row['name']}: {member} of {pkg}@{info['version']} has SHA-256 {digest}, "
                           f"the table pins {row['sha256']}")
    tmp = folder / f".{row['name']}.woff.part"
    tmp.write_bytes(data)
    tmp.replace(folder / f"{row['name']}.woff")
    return row["name"], info["version"], digest


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    roles = sorted({r["role"] for r in google_fonts.rows()})
    ap.add_argument("--role", choices=roles, help="only this role's faces")
    ap.add_argument("--pin", action="store_true", help="write the versions and hashes fetched into the table")
    ap.add_argument("--jobs", type=int, default=8)
    args = ap.parse_args(argv)
    table = google_fonts.rows()
    folder = google_fonts.font_dir()
    folder.mkdir(parents=True, exist_ok=True)
    todo = [r for r in table if (args.role is None or r["role"] == args.role)
            and not (r["sha256"] and (folder / f"{r['name']}.woff").is_file())]
    print(f"fetching {len(todo)} faces into {folder}", flush=True)
    got: dict[str, tuple[str, str]] = {}
    failed: dict[str, Exception] = {}
    with ThreadPoolExecutor(args.jobs) as pool:
        futures = {pool.submit(fetch, r, folder): r["name"] for r in todo}
        for i, fut in enumerate(futures, 1):
            try:
                name, version, digest = fut.result()
                got[name] = (version, digest)
            except Exception as exc:  # noqa: BLE001 - each face's fault named, the others go on
                failed[futures[fut]] = exc
            if i % 50 == 0:
                print(f"  {i} of {len(todo)}", flush=True)
    if args.pin:
        dropped = {name for name, exc in failed.items()
                   if isinstance(exc, urllib.error.HTTPError) and exc.code == 404}
        for r in table:
            path = folder / f"{r['name']}.woff"
            if r["name"] not in dropped and path.is_file() and (gone := lacking(path)):
                dropped.add(r["name"])
                print(f"dropped {r['name']}: its character map lacks {gone}")
        failed = {name: exc for name, exc in failed.items() if name not in dropped}
        print(f"dropped from the table: {', '.join(sorted(dropped)) or 'none'}")
        table = [r for r in table if r["name"] not in dropped]
        for r in table:
            if r["name"] in got:
                r["version"], r["sha256"] = got[r["name"]]
        with open(google_fonts.TABLE, "w", encoding="utf-8", newline="") as fh:
            google_fonts.write(table, fh)
    for name, exc in failed.items():
        print(f"not fetched: {name}: {exc}", file=sys.stderr)
    print(f"fetched {len(got)} of {len(todo)}")
    return 1 if failed else 0

if __name__ == "__main__":
    raise SystemExit(main())

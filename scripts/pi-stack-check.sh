#!/usr/bin/env bash
# The Raspberry Pi's own Python stack as a tested target, on this Debian (Bookworm) machine:
# Debian's /usr/bin/python3, apt's python3-numpy and python3-pygame, opencv-python-headless as
# systemd/install.sh pins it for that numpy (4.11.0.86 for numpy 1.x), in a --system-site-packages venv
# installed the way install.sh installs the kiosk (pip with systemd/pi-constraints.in, apt's numpy and pygame
# kept). Runs the app, UI and vision tests there, then the built-in demo, which must end with
# the built-in record's final score.
#
#   scripts/pi-stack-check.sh [PYTEST ARGS]    (./run test runs it after the main suite; ./run pi-check alone)
#
# Environment: PI_VENV (default .venv-pi), TEST_WORKERS (default 3), PI_MARK (pytest -m, default "not slow").
# Exits 0 when all passed (or, saying so, on a machine that is not Debian: nothing to build the stack from),
# 1 on a failure, 2 when the stack cannot be built (apt packages missing and not root); the apt packages come
# from scripts/system-packages.txt (scripts/system-deps.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
say() { echo "pi-stack-check: $*" >&2; }
PY=/usr/bin/python3
VENV=${PI_VENV:-.venv-pi}
if [ ! -x "$PY" ] || [ ! -r /etc/debian_version ]; then
    say "skipped: the Pi's stack is built from Debian's /usr/bin/python3 and apt packages; this is not Debian"
    exit 0
fi
bash scripts/system-deps.sh
for pkg in python3-venv python3-numpy python3-pygame; do
    dpkg -s "$pkg" >/dev/null 2>&1 || { say "apt package $pkg is missing (run as root, or: apt-get install $pkg)"; exit 2; }
done
numpy_version=$("$PY" -c 'import numpy; print(numpy.__version__)')
if [ "${numpy_version%%.*}" -lt 2 ]; then opencv="opencv-python-headless==4.11.0.86"; else opencv="opencv-python-headless>=4.8,<5.1"; fi
stamp="$VENV/.installed-$(cat pyproject.toml systemd/pi-constraints.in "$0" | sha1sum | cut -c1-12)"
if [ ! -e "$stamp" ]; then
    say "building $VENV: Debian python3 $("$PY" -c 'import platform; print(platform.python_version())'), apt numpy $numpy_version, $opencv"
    rm -rf "$VENV"
    "$PY" -m venv --system-site-packages "$VENV"
    sed -e "s/@NUMPY@/$numpy_version/" -e "s/@OPENCV@/$opencv/" systemd/pi-constraints.in >"$VENV/pi-constraints.txt"
    "$VENV/bin/python" -m pip install -q --upgrade pip >&2
    # the project as install.sh installs it (its pure-Python dependencies from PyPI, numpy and pygame from apt),
    # and the test tools the suites below need (not the [dev] extra: no browser or firmware compiler here)
    "$VENV/bin/python" -m pip install -q -c "$VENV/pi-constraints.txt" -e . \
        "pytest>=8" "pytest-xdist>=3.5" "pytest-timeout>=2.2" "hypothesis>=6.100" "jsonschema>=4.20" >&2
    touch "$stamp"
fi
# the project's own requirements met (pip check also lists apt packages' own gaps, e.g. python3-gi's pycairo)
if "$VENV/bin/python" -m pip check 2>&1 | grep -i "^scrabble-referee-kiosk"; then
    say "the project's requirements are not met on this stack (above)"; exit 1
fi
# the stack must be the Pi's: apt's numpy and pygame (not PyPI wheels shadowing them), OpenCV as pinned
"$VENV/bin/python" - "$opencv" <<'PY'
import os, sys
os.environ["PYGAME_HIDE_SUPPORT_PROMPT"] = "1"
import cv2, numpy, pygame
want_cv = sys.argv[1].split("==")[1] if "==" in sys.argv[1] else None
bad = [f"{m.__name__} {getattr(m, '__version__', '')} from {m.__file__}, not apt's"
       for m in (numpy, pygame) if not m.__file__.startswith("/usr/lib/python3/dist-packages/")]
if want_cv and cv2.__version__ != want_cv.rsplit(".", 1)[0]:
    bad.append(f"OpenCV {cv2.__version__}, not {want_cv}")
print(f"pi-stack-check: python {sys.version.split()[0]} ({sys.executable}), numpy {numpy.__version__}, "
      f"pygame {pygame.version.ver}, OpenCV {cv2.__version__}", file=sys.stderr)
if bad:
    sys.exit("pi-stack-check: wrong stack: " + "; ".join(bad))
PY
export SDL_VIDEODRIVER=dummy SDL_AUDIODRIVER=dummy PYGAME_HIDE_SUPPORT_PROMPT=1
# the app, UI and vision tests: the code that runs on apt's numpy and pygame and the pinned OpenCV (the rules and
# referee are pure Python, free of them: the main suite runs them, and the demo below runs them here too)
"$VENV/bin/python" -m pytest -p no:cacheprovider -q -n "${TEST_WORKERS:-3}" -m "${PI_MARK:-not slow}" \
    tests/app tests/ui tests/vision "$@"
# the built-in demo, headless, on a fresh journal: it exits 0 only when every score matched the record
journal=$(mktemp -d)
trap 'rm -rf "$journal"' EXIT
want=$("$VENV/bin/python" - <<'PY'
from kiosk.app.record_demo import BUILTIN_GAME
from kiosk.app.record_players import plan_record
from kiosk.rules.gcg import read_gcg
plan = plan_record(read_gcg(BUILTIN_GAME))
print(f"final: {plan.nicks[0]} {plan.finals[0]}, {plan.nicks[1]} {plan.finals[1]}")
PY
)
if ! "$VENV/bin/kiosk" demo --headless --journal "$journal/demo.sqlite" >"$journal/out" 2>"$journal/err"; then
    tail -n 5 "$journal/out" "$journal/err" >&2; say "the demo failed on the Pi stack"; exit 1
fi
got=$(tail -n 1 "$journal/out")
[ "$got" = "$want" ] || { say "the demo ended '$got', the record says '$want'"; exit 1; }
say "demo: $got (as recorded)"
say "ok"

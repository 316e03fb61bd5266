#!/usr/bin/env bash
# Installs the Scrabble referee kiosk on Raspberry Pi OS (Bookworm or later, 64-bit) as a systemd service.
# Run as root from a checkout:  sudo systemd/install.sh [--no-enable] [--config FILE] [--dry-run]
#   --no-enable    install, but neither enable nor start the service
#   --config FILE  the table's config to install as /etc/scrabble-kiosk/kiosk.toml when none is there
#                  (default: systemd/kiosk.toml.example, whose judge PIN must be set first)
#   --dry-run      change nothing (no root needed): print each command that would change the system instead of
#                  running it, and check the config the service would start with
# The service is enabled and started only on a config `kiosk run --config FILE --check` accepts (run as the
# service's user), and the script then waits to see it running; otherwise it says why and exits 1.
# See the Raspberry Pi section of README.md for what it does and why.
set -euo pipefail

PREFIX=/opt/scrabble-kiosk
CONFIG_DIR=/etc/scrabble-kiosk
CONFIG=$CONFIG_DIR/kiosk.toml
SERVICE=scrabble-kiosk.service
SERVICE_USER=scrabble-kiosk
SRC=$(cd "$(dirname "$0")/.." && pwd)
NEW_CONFIG=$SRC/systemd/kiosk.toml.example
ENABLE=1
DRY=0

die() { echo "install.sh: $*" >&2; exit 1; }
step() { echo "==> $*"; }
# run CMD...: runs it, or in a dry run prints it
run() { if [ "$DRY" -eq 1 ]; then echo "would run: $*"; else "$@"; fi; }

while [ $# -gt 0 ]; do
    case "$1" in
        --no-enable) ENABLE=0 ;;
        --dry-run) DRY=1 ;;
        --config)
            [ $# -ge 2 ] || die "--config needs the config file to install"
            NEW_CONFIG=$2
            shift ;;
        *) die "unknown option '$1' (options: --no-enable, --config FILE, --dry-run)" ;;
    esac
    shift
done

[ "$DRY" -eq 1 ] || [ "$(id -u)" -eq 0 ] || die "run me as root (sudo $0), or with --dry-run to see what I would do"
[ -f "$SRC/pyproject.toml" ] || die "$SRC does not look like the kiosk's source tree"
[ -f "$NEW_CONFIG" ] || die "--config $NEW_CONFIG: no such file"
model=$( { tr -d '\0' </proc/device-tree/model; } 2>/dev/null || echo "unknown")
step "machine: $model"
case "$model" in
    *"Raspberry Pi"*) ;;
    *) echo "warning: not a Raspberry Pi; installing anyway (GPIO, I2C and camera will report 'down')" >&2 ;;
esac

# The config the service will start with: the one in /etc, or the one this script installs there.
if [ -e "$CONFIG" ]; then
    START_CONFIG=$CONFIG
    [ "$NEW_CONFIG" = "$SRC/systemd/kiosk.toml.example" ] || echo "keeping $CONFIG (--config $NEW_CONFIG not installed)"
else
    START_CONFIG=$NEW_CONFIG
fi

# check_config FILE [USER]: `kiosk run --config FILE --check` (as USER when given); prints its verdict
check_config() {
    local kiosk=$PREFIX/.venv/bin/kiosk
    if [ "$DRY" -eq 1 ] && [ ! -x "$kiosk" ]; then
        kiosk=$SRC/.venv/bin/kiosk   # nothing installed yet: the checkout's own (./run makes it)
        [ -x "$kiosk" ] || die "no kiosk to check the config with: run ./run once in $SRC (it makes .venv)"
    fi
    if [ $# -ge 2 ]; then
        runuser -u "$2" -- "$kiosk" run --config "$1" --check
    else
        "$kiosk" run --config "$1" --check
    fi
}

# RPi.GPIO (python3-rpi.gpio) fails on a Pi 5 and must not share an environment with rpi-lgpio, which gives
# the same RPi.GPIO API on every Pi. It is removed alone, never with packages that depend on it: apt is asked
# first what it would remove, and anything more stops the script, naming them.
remove_rpi_gpio() {
    local status removed others
    status=$(dpkg-query -W -f='${Status}' python3-rpi.gpio 2>/dev/null || true)
    [ "$status" = "install ok installed" ] || return 0
    removed=$(apt-get -s remove python3-rpi.gpio 2>/dev/null | sed -n 's/^Remv \([^ ]*\).*/\1/p')
    others=$(echo "$removed" | grep -vx 'python3-rpi.gpio' | tr '\n' ' ' | sed 's/ $//' || true)
    if [ -n "$others" ]; then
        die "python3-rpi.gpio (RPi.GPIO, which rpi-lgpio replaces) cannot be removed alone: apt would also remove" \
            "$others, which depend on it. Nothing was removed. If this Pi does not need them, remove them with it" \
            "(sudo apt-get remove python3-rpi.gpio $others) and run this script again."
    fi
    echo "removing python3-rpi.gpio (replaced by rpi-lgpio; nothing depends on it)"
    run env DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq python3-rpi.gpio
}

step "apt packages"
run apt-get update -qq
remove_rpi_gpio
# Take lgpio's C binding from apt (PyPI has no wheel for the Pi) so pip can add the [pi] extra's rpi-lgpio on
# top of it. picamera2 only comes from apt (it needs the Pi's libcamera); python3-pygame is built with SDL's
# KMS/DRM video driver, which a kiosk without a desktop needs. The fonts draw players' names in any script on
# the touchscreen (kiosk/ui/fonts.py): DejaVu Sans, Noto's per-script faces, WenQuanYi Micro Hei for CJK.
run env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    python3-venv python3-pip python3-numpy python3-picamera2 python3-pygame python3-lgpio i2c-tools \
    fonts-dejavu-core fonts-noto-core fonts-wqy-microhei

step "I2C and camera"
if command -v raspi-config >/dev/null; then
    run raspi-config nonint do_i2c 0 || echo "warning: could not enable I2C (enable it with raspi-config)" >&2
fi

step "user $SERVICE_USER"
for g in gpio i2c video render input dialout; do
    getent group "$g" >/dev/null || run groupadd --system "$g"
done
if ! id "$SERVICE_USER" >/dev/null 2>&1; then
    run useradd --system --home-dir /var/lib/scrabble-kiosk --no-create-home --shell /usr/sbin/nologin \
        --user-group "$SERVICE_USER"
fi
run usermod -a -G gpio,i2c,video,render,input,dialout "$SERVICE_USER"

step "code in $PREFIX"
run mkdir -p "$PREFIX"
if [ "$DRY" -eq 1 ]; then
    echo "would run: tar -C $SRC --exclude=.git --exclude=.venv --exclude=__pycache__ -cf - . | tar -C $PREFIX -xf -"
else
    tar -C "$SRC" --exclude=.git --exclude=.venv --exclude='__pycache__' -cf - . | tar -C "$PREFIX" -xf -
fi

step "virtual environment (with system site packages, for apt's picamera2, numpy, pygame, lgpio)"
run python3 -m venv --system-site-packages "$PREFIX/.venv"
if [ "$DRY" -eq 1 ]; then   # apt's numpy may not be there yet: the dry run says Bookworm's
    numpy_version=$(python3 -c 'import numpy; print(numpy.__version__)' 2>/dev/null || echo "1.24.2")
else
    numpy_version=$(python3 -c 'import numpy; print(numpy.__version__)')
fi
if [ "${numpy_version%%.*}" -lt 2 ]; then
    opencv="opencv-python-headless==4.11.0.86"   # the last wheel that accepts numpy 1.x
else
    opencv="opencv-python-headless>=4.8,<5.1"
fi
if [ "$DRY" -eq 1 ]; then
    echo "would write $PREFIX/pi-constraints.txt: numpy==$numpy_version, $opencv"
else
    sed -e "s/@NUMPY@/$numpy_version/" -e "s/@OPENCV@/$opencv/" "$SRC/systemd/pi-constraints.in" \
        >"$PREFIX/pi-constraints.txt"
fi
run "$PREFIX/.venv/bin/pip" install -q --upgrade pip
run "$PREFIX/.venv/bin/pip" install -q -c "$PREFIX/pi-constraints.txt" "${PREFIX}[pi]"
# PyPI's pygame wheel would shadow apt's, and may lack the KMS/DRM driver: use apt's
if [ "$DRY" -eq 0 ] && "$PREFIX/.venv/bin/pip" show pygame >/dev/null 2>&1; then
    "$PREFIX/.venv/bin/pip" uninstall -q -y pygame
fi
if [ "$DRY" -eq 0 ]; then
    "$PREFIX/.venv/bin/python" - <<'PY'
import importlib
for name in ("numpy", "cv2", "pygame", "serial", "smbus2", "RPi.GPIO", "picamera2"):
    try:
        mod = importlib.import_module(name)
        print(f"    {name:10s} {getattr(mod, '__version__', getattr(mod, 'VERSION', 'ok'))}")
    except Exception as exc:  # report, don't stop: the kiosk runs with what works
        print(f"    {name:10s} NOT USABLE: {exc}")
PY
fi

step "udev rule for the clock (/dev/scrabble-clock)"
run install -m 0644 "$SRC/systemd/99-scrabble-clock.rules" /etc/udev/rules.d/99-scrabble-clock.rules
if [ "$DRY" -eq 0 ] && ! { udevadm control --reload-rules && udevadm trigger --subsystem-match=tty; }; then
    echo "warning: udev did not reload; unplug and replug the clock (or reboot)" >&2
fi

step "systemd service"
run install -d -m 0750 -o root -g "$SERVICE_USER" "$CONFIG_DIR"
if [ ! -e "$CONFIG" ]; then
    run install -m 0640 -o root -g "$SERVICE_USER" "$NEW_CONFIG" "$CONFIG"
    [ "$DRY" -eq 1 ] || echo "wrote $CONFIG from $NEW_CONFIG"
fi
run install -m 0644 "$SRC/systemd/scrabble-kiosk.service" "/etc/systemd/system/$SERVICE"
run systemctl daemon-reload

step "checking the config the service starts with ($CONFIG)"
if [ "$DRY" -eq 1 ]; then
    check_ok() { check_config "$START_CONFIG"; }
else
    check_ok() { check_config "$CONFIG" "$SERVICE_USER"; }
fi
if ! check_ok; then
    if [ "$ENABLE" -eq 0 ]; then
        echo "installed, not enabled; the kiosk cannot start on $CONFIG yet (above): correct it before" \
             "systemctl enable --now $SERVICE" >&2
        exit 0
    fi
    die "the kiosk cannot start on $CONFIG (above): the service was not enabled, started or restarted." \
        "Correct it (the judge PIN: 4 to 8 digits in quotes), then run: sudo systemctl enable --now $SERVICE"
fi

if [ "$ENABLE" -eq 0 ]; then
    echo "installed, not enabled (systemctl enable --now $SERVICE)"
    exit 0
fi
run systemctl enable "$SERVICE"
if [ "$DRY" -eq 1 ]; then
    echo "would run: systemctl restart $SERVICE, then see it running for 10 s (systemctl is-active $SERVICE)"
    exit 0
fi
systemctl restart "$SERVICE" || true    # Type=notify: returns once the kiosk is up, or has failed
for _ in 1 2 3 4 5 6 7 8 9 10; do       # and still up 10 s later (a crash loop is "activating")
    if ! systemctl is-active --quiet "$SERVICE"; then
        echo "install.sh: $SERVICE is not running (systemctl is-active: $(systemctl is-active "$SERVICE" || true));" \
             "its last log lines:" >&2
        journalctl -u "$SERVICE" -n 20 --no-pager >&2 || true
        exit 1
    fi
    sleep 1
done
echo "started, running; follow it with: journalctl -fu scrabble-kiosk"

#!/usr/bin/env bash
# Installs the Scrabble referee kiosk on Raspberry Pi OS (Bookworm or later, 64-bit) as a systemd service.
# Run as root from a checkout:  sudo systemd/install.sh [--no-enable]
# See the Raspberry Pi section of README.md for what it does and why.
set -euo pipefail

PREFIX=/opt/scrabble-kiosk
SERVICE_USER=scrabble-kiosk
SRC=$(cd "$(dirname "$0")/.." && pwd)
ENABLE=1
[ "${1:-}" = "--no-enable" ] && ENABLE=0

die() { echo "install.sh: $*" >&2; exit 1; }
step() { echo "==> $*"; }

[ "$(id -u)" -eq 0 ] || die "run me as root (sudo $0)"
[ -f "$SRC/pyproject.toml" ] || die "$SRC does not look like the kiosk's source tree"
model=$(tr -d '\0' </proc/device-tree/model 2>/dev/null || echo "unknown")
step "machine: $model"
case "$model" in
    *"Raspberry Pi"*) ;;
    *) echo "warning: not a Raspberry Pi; installing anyway (GPIO, I2C and camera will report 'down')" >&2 ;;
esac

step "apt packages"
apt-get update -qq
# RPi.GPIO (python3-rpi.gpio) fails on a Pi 5 and must not share an environment with rpi-lgpio, which gives
# the same RPi.GPIO API on every Pi: remove the former, take lgpio's C binding from apt (PyPI has no wheel
# for the Pi) so pip can add the [pi] extra's rpi-lgpio on top of it.
if dpkg -s python3-rpi.gpio >/dev/null 2>&1; then
    echo "removing python3-rpi.gpio (replaced by rpi-lgpio)"
    DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq python3-rpi.gpio
fi
# picamera2 only comes from apt (it needs the Pi's libcamera); python3-pygame is built with SDL's KMS/DRM
# video driver, which a kiosk without a desktop needs. The fonts draw players' names in any script on the
# touchscreen (kiosk/ui/fonts.py): DejaVu Sans, Noto's per-script faces, WenQuanYi Micro Hei for CJK.
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    python3-venv python3-pip python3-numpy python3-picamera2 python3-pygame python3-lgpio i2c-tools \
    fonts-dejavu-core fonts-noto-core fonts-wqy-microhei

step "I2C and camera"
if command -v raspi-config >/dev/null; then
    raspi-config nonint do_i2c 0 || echo "warning: could not enable I2C (enable it with raspi-config)" >&2
fi

step "user $SERVICE_USER"
for g in gpio i2c video render input dialout; do
    getent group "$g" >/dev/null || groupadd --system "$g"
done
if ! id "$SERVICE_USER" >/dev/null 2>&1; then
    useradd --system --home-dir /var/lib/scrabble-kiosk --no-create-home --shell /usr/sbin/nologin \
        --user-group "$SERVICE_USER"
fi
usermod -a -G gpio,i2c,video,render,input,dialout "$SERVICE_USER"

step "code in $PREFIX"
mkdir -p "$PREFIX"
tar -C "$SRC" --exclude=.git --exclude=.venv --exclude='__pycache__' -cf - . | tar -C "$PREFIX" -xf -

step "virtual environment (with system site packages, for apt's picamera2, numpy, pygame, lgpio)"
python3 -m venv --system-site-packages "$PREFIX/.venv"
numpy_version=$(python3 -c 'import numpy; print(numpy.__version__)')
if [ "${numpy_version%%.*}" -lt 2 ]; then
    opencv="opencv-python-headless==4.11.0.86"   # the last wheel that accepts numpy 1.x
else
    opencv="opencv-python-headless>=4.8,<5.1"
fi
sed -e "s/@NUMPY@/$numpy_version/" -e "s/@OPENCV@/$opencv/" "$SRC/systemd/pi-constraints.in" \
    >"$PREFIX/pi-constraints.txt"
"$PREFIX/.venv/bin/pip" install -q --upgrade pip
"$PREFIX/.venv/bin/pip" install -q -c "$PREFIX/pi-constraints.txt" "${PREFIX}[pi]"
# PyPI's pygame wheel would shadow apt's, and may lack the KMS/DRM driver: use apt's
if "$PREFIX/.venv/bin/pip" show pygame >/dev/null 2>&1; then
    "$PREFIX/.venv/bin/pip" uninstall -q -y pygame
fi
"$PREFIX/.venv/bin/python" - <<'PY'
import importlib
for name in ("numpy", "cv2", "pygame", "serial", "smbus2", "RPi.GPIO", "picamera2"):
    try:
        mod = importlib.import_module(name)
        print(f"    {name:10s} {getattr(mod, '__version__', getattr(mod, 'VERSION', 'ok'))}")
    except Exception as exc:  # report, don't stop: the kiosk runs with what works
        print(f"    {name:10s} NOT USABLE: {exc}")
PY

step "udev rule for the clock (/dev/scrabble-clock)"
install -m 0644 "$SRC/systemd/99-scrabble-clock.rules" /etc/udev/rules.d/99-scrabble-clock.rules
if ! { udevadm control --reload-rules && udevadm trigger --subsystem-match=tty; }; then
    echo "warning: udev did not reload; unplug and replug the clock (or reboot)" >&2
fi

step "systemd service"
install -d -m 0750 -o root -g "$SERVICE_USER" /etc/scrabble-kiosk
if [ ! -e /etc/scrabble-kiosk/kiosk.toml ]; then
    install -m 0640 -o root -g "$SERVICE_USER" "$SRC/systemd/kiosk.toml.example" /etc/scrabble-kiosk/kiosk.toml
    echo "wrote /etc/scrabble-kiosk/kiosk.toml: set the judge PIN and the players there" >&2
fi
install -m 0644 "$SRC/systemd/scrabble-kiosk.service" /etc/systemd/system/scrabble-kiosk.service
systemctl daemon-reload
if [ "$ENABLE" -eq 1 ]; then
    systemctl enable scrabble-kiosk.service
    systemctl restart scrabble-kiosk.service
    echo "started; follow it with: journalctl -fu scrabble-kiosk"
else
    echo "installed, not enabled (systemctl enable --now scrabble-kiosk)"
fi

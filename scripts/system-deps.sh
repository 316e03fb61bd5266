#!/usr/bin/env bash
# System packages the tests need (Debian names). Installed when missing and we are root; otherwise listed.
set -uo pipefail
need=()
for pkg in $(grep -v '^#' "$(dirname "$0")/system-packages.txt"); do
    dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
[ ${#need[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "installing system packages: ${need[*]}" >&2
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}") >&2 \
        || echo "warning: could not install ${need[*]}" >&2
else
    echo "warning: missing system packages (install them as root): ${need[*]}" >&2
fi

#!/usr/bin/env bash
# Installs the Debian packages brushwork needs (Chromium for rendering, Node.js + npm for
# the pinned p5 / p5.brush). Idempotent: installs only what is missing.
set -euo pipefail

need=()
[ -x /usr/lib/chromium/chromium-headless-shell ] || need+=(chromium-headless-shell)
[ -x /usr/lib/chromium/chromium ] || need+=(chromium)
command -v node >/dev/null 2>&1 || need+=(nodejs)
command -v npm >/dev/null 2>&1 || need+=(npm)
python3 -c 'import venv, ensurepip' >/dev/null 2>&1 || need+=(python3-venv)
# OpenCV (pulled in by the gate's OCR, rapidocr-onnxruntime) links libGL.so.1.
python3 -c 'import ctypes.util, sys; sys.exit(ctypes.util.find_library("GL") is None)' || need+=(libgl1)

if [ ${#need[@]} -eq 0 ]; then
  exit 0
fi
echo "brushwork setup: installing Debian packages: ${need[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "brushwork setup: need root (or sudo) to install: ${need[*]}" >&2; exit 1; fi
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null

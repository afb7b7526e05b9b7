#!/usr/bin/env bash
# Installs the Debian packages the project needs, only those that are missing, so a second run
# costs a few `command -v` calls. Root runs apt-get directly; anyone else goes through sudo.
set -euo pipefail
need=()
command -v python3 >/dev/null || need+=(python3)
python3 -c 'import venv, ensurepip' 2>/dev/null || need+=(python3-venv)
command -v node >/dev/null || need+=(nodejs)
command -v npm >/dev/null || need+=(npm)
for extra in "$@"; do
  case "$extra" in
    chromium) command -v chromium >/dev/null || need+=(chromium) ;;
    graphviz) command -v dot >/dev/null || need+=(graphviz) ;;
    *) dpkg -s "$extra" >/dev/null 2>&1 || need+=("$extra") ;;
  esac
done
[ ${#need[@]} -eq 0 ] && exit 0
echo "Installing Debian packages: ${need[*]}"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${need[@]}"

#!/usr/bin/env bash
# Installs Debian's chromium (as root) when missing: the set-up of the report test only, which
# opens report.html in a real headless browser. tools/setup.sh does not install it, so the first
# README command stays lean.
set -euo pipefail
command -v chromium >/dev/null 2>&1 && exit 0
echo "install_chromium: installing chromium"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends chromium >/dev/null

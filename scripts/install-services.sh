#!/usr/bin/env bash
# Installs the real services tests use, from Debian's packages (idempotent).
# workerd comes from npm (miniflare's dependency) through `npm ci`.
set -euo pipefail
need=()
command -v redis-server >/dev/null 2>&1 || need+=(redis-server)
if [ ${#need[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi
echo "services ready: redis-server $(redis-server --version | awk '{print $3}')"

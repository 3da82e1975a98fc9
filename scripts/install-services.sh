#!/usr/bin/env bash
# Installs the real services tests use, from Debian's packages (idempotent).
# workerd comes from npm (miniflare's dependency) through `npm ci`.
# `--bench` also installs the load generator of the service benches (`wrk`); tests never need it.
set -euo pipefail
need=()
command -v redis-server >/dev/null 2>&1 || need+=(redis-server)
bench=0
for a in "$@"; do
  case "$a" in
    --bench) bench=1 ;;
    *) echo "usage: scripts/install-services.sh [--bench]" >&2; exit 2 ;;
  esac
done
if [ "$bench" -eq 1 ]; then
  command -v wrk >/dev/null 2>&1 || need+=(wrk)
fi
if [ ${#need[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi
echo "services ready: redis-server $(redis-server --version | awk '{print $3}')"
if [ "$bench" -eq 1 ]; then
  echo "bench tools ready: $(wrk -v 2>&1 | head -1 | awk '{print $1, $2}')"
fi

#!/usr/bin/env bash
# Installs the real services tests use, from Debian's packages (idempotent).
# workerd comes from npm (miniflare's dependency) through `npm ci`.
# `--bench` also installs the load generator of the service benches (`wrk`); tests never need it.
#
# A busy package manager (another apt/dpkg holding its lock, e.g. unattended-upgrades) is waited
# for, not an error: apt-get runs with DPkg::Lock::Timeout, and a run refused because of a lock
# ("Could not get lock ...") is retried every TAGSTREAM_APT_RETRY_SECONDS (5) seconds for up to
# TAGSTREAM_APT_LOCK_WAIT seconds (600), with a message on stderr while waiting.
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

lock_wait="${TAGSTREAM_APT_LOCK_WAIT:-600}"
retry_every="${TAGSTREAM_APT_RETRY_SECONDS:-5}"

# Runs apt-get with its arguments; while it fails because a dpkg/apt lock is held, waits and
# retries until the deadline. Other failures are reported at once.
apt_get() {
  local deadline=$((SECONDS + lock_wait)) out status
  while true; do
    status=0
    out="$($SUDO apt-get -o "DPkg::Lock::Timeout=$lock_wait" "$@" 2>&1)" || status=$?
    if [ "$status" -eq 0 ]; then
      return 0
    fi
    if ! grep -qiE "could not get lock|unable to acquire the dpkg|unable to lock" <<<"$out"; then
      printf '%s\n' "$out" >&2
      echo "install-services: apt-get $* failed (exit $status)" >&2
      return "$status"
    fi
    if [ "$SECONDS" -ge "$deadline" ]; then
      printf '%s\n' "$out" >&2
      echo "install-services: the package manager was still busy after ${lock_wait}s" \
        "(TAGSTREAM_APT_LOCK_WAIT); try again when the other apt/dpkg run ends" >&2
      return "$status"
    fi
    echo "install-services: waiting for the package manager lock" \
      "($(grep -iE -m1 "could not get lock|unable to" <<<"$out" | cut -c1-160))" >&2
    sleep "$retry_every"
  done
}

if [ ${#need[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  apt_get update -qq
  DEBIAN_FRONTEND=noninteractive apt_get install -y -qq "${need[@]}" >/dev/null
fi
echo "services ready: redis-server $(redis-server --version | awk '{print $3}')"
if [ "$bench" -eq 1 ]; then
  echo "bench tools ready: $(wrk -v 2>&1 | head -1 | awk '{print $1, $2}')"
fi

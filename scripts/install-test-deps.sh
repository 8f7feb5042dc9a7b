#!/usr/bin/env bash
# Installs the Debian packages the test suite runs for real, beyond PostgreSQL and pgvector (which
# daemon/src/local-pg/provision.ts installs itself): pgbouncer, for the pooling tests, and pgbackrest,
# for the point-in-time recovery tests.
#
#   sudo bash scripts/install-test-deps.sh
#
# `npm test` runs this by itself when it runs as root on Debian/Ubuntu and one is missing; otherwise
# the tests that need them fail and say how to install them. They are never skipped.
set -euo pipefail

die() { echo "install-test-deps: $*" >&2; exit 1; }
# shellcheck source=scripts/apt.sh
. "$(dirname "${BASH_SOURCE[0]}")/apt.sh"

have() { command -v "$1" >/dev/null || [ -x "/usr/sbin/$1" ] || [ -x "/usr/bin/$1" ]; }
missing=()
for pkg in pgbouncer pgbackrest; do
  if have "$pkg"; then echo "==> $pkg already installed"; else missing+=("$pkg"); fi
done
[ "${#missing[@]}" = 0 ] && exit 0
[ "$(id -u)" = 0 ] || die "must run as root (try: sudo bash $0)"
command -v apt-get >/dev/null || die "apt-get not found: install ${missing[*]} with your system's package manager"
export DEBIAN_FRONTEND=noninteractive
echo "==> installing ${missing[*]}"
apt_get update -q
apt_get install -y -q -o Dpkg::Use-Pty=0 "${missing[@]}"
# The pgbouncer package starts a system-wide pgbouncer on port 6432 where init systems allow it; the
# tests start their own on free ports and need none.
if command -v systemctl >/dev/null && systemctl is-active --quiet pgbouncer 2>/dev/null; then
  systemctl stop pgbouncer || true
  systemctl disable pgbouncer >/dev/null 2>&1 || true
fi

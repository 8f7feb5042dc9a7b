#!/usr/bin/env bash
# Installs the Debian packages the test suite runs for real, beyond PostgreSQL and pgvector (which
# daemon/src/db/provision.ts installs itself): pgbouncer, for the pooling tests.
#
#   sudo bash scripts/install-test-deps.sh
#
# `npm test` runs this by itself when it runs as root on Debian/Ubuntu and pgbouncer is missing;
# otherwise the pgbouncer tests fail and say how to install it. They are never skipped.
set -euo pipefail

die() { echo "install-test-deps: $*" >&2; exit 1; }

command -v pgbouncer >/dev/null || [ -x /usr/sbin/pgbouncer ] && { echo "==> pgbouncer already installed"; exit 0; }
[ "$(id -u)" = 0 ] || die "must run as root (try: sudo bash $0)"
command -v apt-get >/dev/null || die "apt-get not found: install pgbouncer with your system's package manager"
export DEBIAN_FRONTEND=noninteractive
echo "==> installing pgbouncer"
apt-get update -q
apt-get install -y -q -o Dpkg::Use-Pty=0 pgbouncer
# The package starts a system-wide pgbouncer on port 6432 where init systems allow it; the tests
# start their own on free ports and need none.
if command -v systemctl >/dev/null && systemctl is-active --quiet pgbouncer 2>/dev/null; then
  systemctl stop pgbouncer || true
  systemctl disable pgbouncer >/dev/null 2>&1 || true
fi

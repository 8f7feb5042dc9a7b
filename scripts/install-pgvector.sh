#!/usr/bin/env bash
# Installs the PostgreSQL server (when missing) and the pgvector extension on Debian/Ubuntu.
#
#   sudo bash scripts/install-pgvector.sh [PG_MAJOR]
#
# daemon/src/local-pg/provision.ts runs this when docsift starts as root without a DATABASE_URL;
# people running docsift as a normal user can run it once with sudo instead.
# Order of preference for pgvector: already installed > distro package
# postgresql-NN-pgvector (only if >= 0.5.0, the first release with HNSW) > build from
# Debian trixie's source package against the local server headers.
# Lines starting with "==> " are progress messages that provision.ts forwards to its log. Exit 75:
# another process held apt's lock for DOCSIFT_APT_LOCK_TIMEOUT seconds (scripts/apt.sh); nothing
# was installed, and starting docsift again installs it.
set -euo pipefail

say() { echo "==> $*"; }
die() { echo "install-pgvector: $*" >&2; exit 1; }
# shellcheck source=scripts/apt.sh
. "$(dirname "${BASH_SOURCE[0]}")/apt.sh"

[ "$(id -u)" = 0 ] || die "must run as root (try: sudo bash $0)"
command -v apt-get >/dev/null || die "apt-get not found; only Debian and Ubuntu are supported"
export DEBIAN_FRONTEND=noninteractive
apt_install() { apt_get install -y -q -o Dpkg::Use-Pty=0 "$@"; }

updated=0
apt_update() { [ "$updated" = 1 ] && return 0; say "refreshing apt package lists"; apt_get update -q; updated=1; }
# A fresh container image ships with empty lists; apt-cache knows nothing until one update.
ensure_lists() { ls /var/lib/apt/lists/*_Packages* >/dev/null 2>&1 || apt_update; }
# Candidate version apt would install, empty when the package is unknown.
candidate() { apt-cache policy "$1" 2>/dev/null | awk '$1 == "Candidate:" && $2 != "(none)" { print $2 }'; }
# Highest PostgreSQL major under /usr/lib/postgresql that has a server binary.
installed_major() {
  local d best=""
  for d in /usr/lib/postgresql/*/bin/postgres; do
    [ -x "$d" ] || continue
    d=${d#/usr/lib/postgresql/}; d=${d%%/*}
    if [ -z "$best" ] || [ "$d" -gt "$best" ] 2>/dev/null; then best=$d; fi
  done
  echo "$best"
}

major=${1:-$(installed_major)}
if [ -z "$major" ] || [ ! -x "/usr/lib/postgresql/$major/bin/postgres" ]; then
  ensure_lists
  pkg=postgresql-${major:-15}
  # Other releases ship a different major; fall back to the distro's default version.
  [ -n "$(candidate "$pkg")" ] || pkg=postgresql
  say "installing PostgreSQL server package $pkg (about 30 s)…"
  apt_install "$pkg"
  major=$(installed_major)
  [ -n "$major" ] || die "installed $pkg but found no server under /usr/lib/postgresql"
fi

pg_config=/usr/lib/postgresql/$major/bin/pg_config
if [ ! -x "$pg_config" ]; then
  ensure_lists
  say "installing postgresql-server-dev-$major for pg_config"
  apt_install "postgresql-server-dev-$major"
fi
control="$("$pg_config" --sharedir)/extension/vector.control"
if [ -f "$control" ]; then say "pgvector already installed for PostgreSQL $major"; exit 0; fi

ensure_lists
pkg=postgresql-$major-pgvector
ver=$(candidate "$pkg")
if [ -n "$ver" ] && dpkg --compare-versions "$ver" ge 0.5.0; then
  say "installing $pkg $ver from the distro"
  apt_install "$pkg"
else
  say "building pgvector from Debian source (about 30 s)…"
  keyring=/usr/share/keyrings/debian-archive-keyring.gpg
  [ -f "$keyring" ] || apt_install debian-archive-keyring
  src=/etc/apt/sources.list.d/docsift-trixie-src.sources
  if [ ! -f "$src" ]; then
    printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: trixie\nComponents: main\nSigned-By: %s\n' \
      "$keyring" >"$src"
    updated=0 # the new trixie source index has to be fetched even if lists were just refreshed
  fi
  apt_update
  apt_install "postgresql-server-dev-$major" dpkg-dev make gcc
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  cd "$tmp"
  apt-get source -q pgvector
  cd "$(find . -mindepth 1 -maxdepth 1 -type d -name 'pgvector-*' | head -n 1)"
  make -j"$(nproc)" PG_CONFIG="$pg_config"
  make install PG_CONFIG="$pg_config"
fi

[ -f "$control" ] || die "pgvector install finished but $control is missing"
say "pgvector installed for PostgreSQL $major"

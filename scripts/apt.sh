# Sourced by the installers (install-pgvector.sh, install-test-deps.sh): apt-get that waits for the
# dpkg lock at most DOCSIFT_APT_LOCK_TIMEOUT seconds (default 300: an unattended upgrade on a fresh
# machine holds it for minutes), and that says so and exits 75 (EX_TEMPFAIL) when the lock stayed
# taken, instead of failing with apt's own message.
APT_LOCK_TIMEOUT=${DOCSIFT_APT_LOCK_TIMEOUT:-300}
# Exit status when another process kept apt's lock: the caller says that starting again will work.
APT_LOCKED=75

apt_get() {
  local err status
  err=$(mktemp)
  status=0
  apt-get -o DPkg::Lock::Timeout="$APT_LOCK_TIMEOUT" "$@" 2>"$err" || status=$?
  cat "$err" >&2
  if [ "$status" != 0 ] && grep -qiE 'could not get lock|unable to acquire the dpkg frontend lock|unable to lock' "$err"; then
    rm -f "$err"
    echo "==> another process (an unattended upgrade, another apt-get) held apt's lock for ${APT_LOCK_TIMEOUT} s; nothing was installed. Run the same command again once it has finished." >&2
    exit "$APT_LOCKED"
  fi
  rm -f "$err"
  return "$status"
}

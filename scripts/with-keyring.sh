#!/bin/sh
# Runs its arguments inside a private D-Bus session with an unlocked gnome-keyring Secret Service,
# so keytar talks to a real keychain in tests (CI and headless machines have no desktop session).
# Usage: scripts/with-keyring.sh npx vitest run test/core/secret-store-keytar.test.ts
set -eu
if [ "$#" -eq 0 ]; then
  echo "usage: $0 <command> [args...]" >&2
  exit 2
fi
if ! command -v dbus-run-session >/dev/null 2>&1 || ! command -v gnome-keyring-daemon >/dev/null 2>&1; then
  echo "with-keyring: dbus-run-session or gnome-keyring-daemon not installed (apt-get install dbus gnome-keyring); running without a Secret Service" >&2
  exec "$@"
fi
# The password only unlocks the throwaway login keyring of this private session. The keyring's files
# live in a folder of this run's own: two runs sharing ~/.local/share/keyrings would each reload the
# file the other rewrote, and a key one of them had just stored would vanish.
keyrings=$(mktemp -d "${TMPDIR:-/tmp}/with-keyring-XXXXXX")
status=0
dbus-run-session -- sh -c 'printf %s pw | XDG_DATA_HOME="$0" gnome-keyring-daemon --unlock --components=secrets >/dev/null; exec "$@"' "$keyrings" "$@" || status=$?
rm -rf "$keyrings"
exit "$status"

#!/usr/bin/env bash
# Install the .deb into a fresh Debian 12 (bookworm) chroot holding only a minimal base system
# (debootstrap --variant=minbase) plus what the package declares in Depends, then run the
# installed app's self-test there as an ordinary user. Proves the Depends line is complete.
#
# Run by hand, not in CI: it needs root, debootstrap and a Debian mirror (a few minutes).
#   sudo packaging/check-fresh-debian.sh [PACKAGE.deb]
# Environment: DEBIAN_MIRROR (default http://deb.debian.org/debian), KEEP_CHROOT=1 to keep the
# chroot (its path is printed) for a look around.
set -euo pipefail
cd "$(dirname "$0")/.."

deb="${1:-$(ls -t dist/skillprism_*.deb 2>/dev/null | head -n 1 || true)}"
if [ -z "$deb" ] || [ ! -f "$deb" ]; then
    echo "check-fresh-debian: no .deb given and none in dist/ (run make package first)" >&2
    exit 2
fi
if [ "$(id -u)" -ne 0 ]; then
    echo "check-fresh-debian: needs root (debootstrap and chroot)" >&2
    exit 2
fi
command -v debootstrap >/dev/null || { echo "check-fresh-debian: apt-get install debootstrap" >&2; exit 2; }

mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
root="$(mktemp -d "${TMPDIR:-/tmp}/skillprism-fresh-debian.XXXXXX")"
chmod 755 "$root"  # mktemp makes it private: the chroot's / must be readable by everyone
mounted=()
cleanup() {
    for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -l "${mounted[$i]}" 2>/dev/null || true; done
    if [ "${KEEP_CHROOT:-0}" = 1 ]; then
        echo "check-fresh-debian: chroot kept at $root"
    else
        rm -rf --one-file-system "$root"
    fi
}
trap cleanup EXIT

echo "check-fresh-debian: debootstrap --variant=minbase bookworm into $root"
debootstrap --variant=minbase bookworm "$root" "$mirror" >"$root.log" 2>&1 || {
    tail -n 20 "$root.log" >&2
    exit 2
}
rm -f "$root.log"
# What a booted system has: /proc (the frozen app finds itself through /proc/self/exe), /dev
# with its own /dev/shm (POSIX semaphores for worker processes) and /tmp for everyone.
for fs in proc sys dev dev/pts dev/shm; do
    case "$fs" in
        proc) mount -t proc proc "$root/proc" ;;
        sys) mount -t sysfs sys "$root/sys" ;;
        dev) mount --bind /dev "$root/dev" ;;
        dev/pts) mount --bind /dev/pts "$root/dev/pts" ;;
        dev/shm) mount -t tmpfs -o mode=1777,nosuid,nodev shm "$root/dev/shm" ;;
    esac
    mounted+=("$root/$fs")
done
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }

echo "check-fresh-debian: before: $(in_root dpkg-query -W -f='.' | wc -c) packages in the base system"
cp "$deb" "$root/tmp/skillprism.deb"
in_root apt-get update -qq
# --no-install-recommends: only what the .deb declares may come in.
in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    /tmp/skillprism.deb >/dev/null
echo "check-fresh-debian: after: $(in_root dpkg-query -W -f='.' | wc -c) packages; installed $(in_root dpkg-query -W -f='${Package} ${Version}' skillprism)"

status=0
check() {  # check DESCRIPTION COMMAND...
    local what="$1"
    shift
    if "$@"; then echo "  ok   $what"; else echo "  FAIL $what"; status=1; fi
}
check "launcher on PATH" in_root test -x /usr/bin/skillprism
check "desktop file" in_root test -f /usr/share/applications/org.skillprism.SkillPrism.desktop
check "hicolor icons" in_root test -f /usr/share/icons/hicolor/256x256/apps/org.skillprism.SkillPrism.png
check "scalable icon" in_root test -f /usr/share/icons/hicolor/scalable/apps/org.skillprism.SkillPrism.svg
check "AppStream metainfo" in_root test -f /usr/share/metainfo/org.skillprism.SkillPrism.metainfo.xml
check "copyright" in_root test -f /usr/share/doc/skillprism/copyright
check "skillprism --version" in_root skillprism --version

in_root useradd --create-home tester
echo "check-fresh-debian: skillprism self-test as user 'tester' (no display)"
if chroot "$root" /usr/bin/env -i PATH=/usr/bin:/bin HOME=/home/tester LANG=C.UTF-8 \
    setpriv --reuid=tester --regid=tester --init-groups /usr/bin/skillprism self-test; then
    echo "  ok   self-test"
else
    echo "  FAIL self-test"
    status=1
fi
# `check` exits 1 on the demo set (it holds deliberate errors); 2 would mean it could not run.
set +e
in_root skillprism check /opt/skillprism/_internal/skillprism/skills >/dev/null
code=$?
set -e
check "skillprism check on the demo set (exit $code)" test "$code" -le 1

if [ "$status" = 0 ]; then
    echo "check-fresh-debian: PASS ($(basename "$deb") on a fresh Debian 12)"
else
    echo "check-fresh-debian: FAIL"
fi
exit "$status"

#!/usr/bin/env bash
# Lays out the root file system of the mcp-host container image, which Jib then packs on top of `scratch`: no base
# image can be pulled where this builds, so the image carries what the jlink runtime needs and nothing else.
#   /opt/mcp-host            the jlink runtime image of mcp.cli (no shell launcher: the image has no shell)
#   /lib*, /usr/lib*         the shared libraries the runtime links to (glibc, libstdc++, zlib, ...), as ldd
#                            resolves them on the build machine, copied as plain files
#   /etc/passwd, /etc/group  root and the unprivileged user mcp-host (10001:10001) the image runs as
#   /etc/nsswitch.conf       files, then DNS
#   /home/mcp-host, /tmp     empty; a read-only deployment mounts writable volumes there
#   /proc, /dev              empty mount points
# Usage: stage-rootfs.sh <jlink image dir> <output dir> [<classes dir>]
# The classes dir, if given, is created empty: Jib insists on a project's build output even when it has no classes.
set -euo pipefail
image=$(cd "$1" && pwd)
rootfs=$2
if [ $# -ge 3 ]; then mkdir -p "$3"; fi

if [ ! -x "$image/bin/java" ]; then
  echo "stage-rootfs.sh: no runtime image at $image (mcp.cli's package phase builds it)" >&2
  exit 1
fi
command -v ldd >/dev/null 2>&1 || { echo "stage-rootfs.sh: ldd is needed to find the runtime's libraries" >&2; exit 1; }

rm -rf "$rootfs"
# /proc and /dev: empty mount points, which a runtime that mounts the root read-only (bwrap) cannot create.
mkdir -p "$rootfs/opt" "$rootfs/etc" "$rootfs/tmp" "$rootfs/home/mcp-host" "$rootfs/proc" "$rootfs/dev"
cp -rL "$image" "$rootfs/opt/mcp-host"
# The launcher is a /bin/sh script; the image's entrypoint runs bin/java itself.
rm -f "$rootfs/opt/mcp-host/bin/mcp-host"

# Every ELF file of the runtime, and every library it needs outside the runtime itself. libjvm.so is found by the
# launcher at run time (lib/server), so ldd reports it "not found" for the other libraries: that one is expected.
libs=$(
  find "$image/bin" "$image/lib" -type f \( -name '*.so' -o -perm -u+x \) -print0 \
    | xargs -0 -n1 sh -c 'file_head=$(head -c4 "$0" | od -An -c | tr -d " "); [ "$file_head" = "177ELF" ] && ldd "$0" || true' \
    | awk -v image="$image" '
        $2 == "=>" && $3 == "not" && $1 != "libjvm.so" { print "MISSING " $1; next }
        $2 == "=>" && $3 ~ /^\// && index($3, image) != 1 { print $3; next }
        $1 ~ /^\// { print $1 }' \
    | sort -u)
if grep -q '^MISSING ' <<<"$libs"; then
  echo "stage-rootfs.sh: the runtime needs libraries this machine lacks: $(grep '^MISSING ' <<<"$libs" | cut -d' ' -f2 | tr '\n' ' ')" >&2
  exit 1
fi
while IFS= read -r lib; do
  [ -n "$lib" ] || continue
  mkdir -p "$rootfs$(dirname "$lib")"
  cp -L "$lib" "$rootfs$lib"
done <<<"$libs"

cat > "$rootfs/etc/passwd" <<'PASSWD'
root:x:0:0:root:/root:/sbin/nologin
mcp-host:x:10001:10001:mcp-host:/home/mcp-host:/sbin/nologin
PASSWD
cat > "$rootfs/etc/group" <<'GROUP'
root:x:0:
mcp-host:x:10001:
GROUP
cat > "$rootfs/etc/nsswitch.conf" <<'NSS'
passwd: files
group: files
hosts: files dns
NSS
echo "stage-rootfs.sh: $(wc -l <<<"$libs") libraries from this machine:" $libs >&2

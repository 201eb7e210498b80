#!/usr/bin/env bash
# image.sh — builds calshim's container image with podman (or docker, when IMAGE_TOOL=docker and an
# engine runs), FROM scratch, without pulling anything: the static binary is built here and staged
# with a minimal root file system into the build context.
#
#   scripts/image.sh [TAG]        (default calshim:<git describe>, then also tagged calshim:latest)
#
# The context (build/image/) holds rootfs/: /calshim (CGO_ENABLED=0, -trimpath), /etc/passwd and
# /etc/group naming the user calshim (65532), the CA certificates of this machine (for an https
# upstream) and /var/cache/calshim (the catalog snapshot). deploy/Containerfile copies it. It needs podman
# only (installed when missing) and touches no service of the host. For
# machines that can pull images, deploy/Containerfile.multistage builds the binary in a golang
# image instead (see docs/operations.md, "Container image").
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
GO=${GO:-$(command -v go || echo /usr/local/go/bin/go)}
TOOL=${IMAGE_TOOL:-podman}
VERSION=${VERSION:-$(git -C "$ROOT" describe --always --dirty 2>/dev/null || echo dev)}
TAG=${1:-calshim:$VERSION}
tags=(-t "$TAG")
[ $# -eq 0 ] && tags+=(-t calshim:latest)
CTX=${IMAGE_CONTEXT:-$ROOT/build/image}

# podman is the one thing the build needs: installed from Debian when missing (as root), and nothing else.
# Installing it starts no service, and nothing here stops one, so this is safe on a WordPress host.
if ! command -v "$TOOL" >/dev/null; then
  [ "$TOOL" = podman ] || { echo "image: $TOOL is not installed" >&2; exit 1; }
  [ "$(id -u)" = 0 ] || { echo "image: podman is missing: install it (apt-get install podman), or run as root" >&2; exit 1; }
  echo "image: installing podman" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get -o DPkg::Lock::Timeout=300 update -qq >&2
  apt-get -o DPkg::Lock::Timeout=300 install -y -qq --no-install-recommends podman >&2
fi

rm -rf "$CTX"
mkdir -p "$CTX/rootfs/etc/ssl/certs" "$CTX/rootfs/var/cache/calshim"
(cd "$ROOT" && CGO_ENABLED=0 "$GO" build -trimpath -ldflags "-s -w -X main.version=$VERSION" \
  -o "$CTX/rootfs/calshim" ./cmd/calshim)
printf 'root:x:0:0:root:/:/sbin/nologin\ncalshim:x:65532:65532:calshim:/var/cache/calshim:/sbin/nologin\n' \
  >"$CTX/rootfs/etc/passwd"
printf 'root:x:0:\ncalshim:x:65532:\n' >"$CTX/rootfs/etc/group"
cp /etc/ssl/certs/ca-certificates.crt "$CTX/rootfs/etc/ssl/certs/"
cp "$ROOT/deploy/Containerfile" "$CTX/Containerfile"

# --format docker keeps HEALTHCHECK (the OCI image format has no field for it).
format=()
[ "$TOOL" = podman ] && format=(--format docker)
"$TOOL" build "${format[@]}" -f "$CTX/Containerfile" "${tags[@]}" "$CTX" >&2
echo "$TAG"

#!/bin/sh
# Builds what the image's runtime stages copy, into OUT (default /out),
# from the repository root: the Dockerfile's build stage runs it in the
# golang image, `make test-image` on the host (the same files then go onto
# the same FROM scratch stages).
#
#   OUT/plain/       namesrv, mqadmin (static, CGO_ENABLED=0; -tags
#                    timetzdata: the time zone database inside, for TZ=)
#   OUT/controller/  namesrv, controller, mqadmin (also embedded_controller)
#   OUT/rootfs/      root's files: passwd and group (root, nobody, nonroot
#                    65532), nsswitch.conf, the CA bundle, /tmp
#   OUT/state/       the runtime user's: etc/rocketmq/namesrv.properties, data/
#
# VERSION and REVISION name the build (-version, the startup log,
# rocketmq_build_info); LDFLAGS replaces the whole -ldflags; CA_CERTS is
# where the CA bundle is read.
set -eu
out=${1:-/out}
pkg=github.com/rmqgo/nameserver/internal/version
if [ -z "${LDFLAGS:-}" ]; then
	LDFLAGS="-s -w"
	[ -n "${VERSION:-}" ] && LDFLAGS="$LDFLAGS -X $pkg.Version=$VERSION"
	[ -n "${REVISION:-}" ] && LDFLAGS="$LDFLAGS -X $pkg.revision=$REVISION"
fi
export CGO_ENABLED=0
go build -trimpath -ldflags="$LDFLAGS" -tags timetzdata -o "$out/plain/" ./cmd/namesrv ./cmd/mqadmin
go build -trimpath -ldflags="$LDFLAGS" -tags embedded_controller,timetzdata -o "$out/controller/" \
	./cmd/namesrv ./cmd/controller ./cmd/mqadmin

root="$out/rootfs"
mkdir -p "$root/etc/ssl/certs" "$root/tmp"
chmod 1777 "$root/tmp"
cat >"$root/etc/passwd" <<'EOF'
root:x:0:0:root:/root:/sbin/nologin
nobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin
nonroot:x:65532:65532:nonroot:/data:/sbin/nologin
EOF
cat >"$root/etc/group" <<'EOF'
root:x:0:
nobody:x:65534:
nonroot:x:65532:
EOF
echo 'hosts: files dns' >"$root/etc/nsswitch.conf"
cp "${CA_CERTS:-/etc/ssl/certs/ca-certificates.crt}" "$root/etc/ssl/certs/ca-certificates.crt"
chmod -R go-w "$root/etc"

mkdir -p "$out/state/etc/rocketmq" "$out/state/data"
cp deploy/container/namesrv.properties "$out/state/etc/rocketmq/namesrv.properties"

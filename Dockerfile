# syntax=docker/dockerfile:1
#
# The NameServer image, in two targets (make image builds both):
#
#   docker build --target namesrv            -t rmqgo/namesrv .             # default build
#   docker build --target namesrv-controller -t rmqgo/namesrv-controller .  # -tags embedded_controller
#
# Static binaries (CGO_ENABLED=0) on distroless/static, run as the
# nonroot user 65532. No shell in the image: the entrypoint is the binary
# and HEALTHCHECK runs `namesrv -healthcheck`, which asks /healthz of the
# metrics listener its configuration names.
#
# Configuration: /etc/rocketmq/namesrv.properties (deploy/container/,
# replace it with a mount) and NAMESRV_<KEY>=value variables over it
# (NAMESRV_LISTEN_PORT=9876 sets listenPort; see README "Container image").
# State (kvConfig.db, the controller's Raft store) under /data.

ARG GO_VERSION=1.26
ARG BASE=gcr.io/distroless/static-debian12:nonroot

FROM golang:${GO_VERSION} AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ENV CGO_ENABLED=0
# VERSION and REVISION (make image passes the Makefile's) are what
# -version, the startup log and rocketmq_build_info name.
ARG VERSION=1.1.0-dev
ARG REVISION=unknown
ARG LDFLAGS="-s -w -X github.com/rmqgo/nameserver/internal/version.Version=${VERSION} -X github.com/rmqgo/nameserver/internal/version.revision=${REVISION}"
RUN go build -trimpath -ldflags="${LDFLAGS}" -o /out/plain/ ./cmd/namesrv ./cmd/mqadmin
RUN go build -trimpath -ldflags="${LDFLAGS}" -tags embedded_controller -o /out/controller/ ./cmd/namesrv ./cmd/controller ./cmd/mqadmin
# The writable tree of the runtime user: the -c file's directory (updates
# rewrite the file beside a .bak) and the data directory. Only these two
# are copied as the user's; /etc and the rest stay root's.
RUN mkdir -p /rootfs/etc/rocketmq /rootfs/data \
 && cp deploy/container/namesrv.properties /rootfs/etc/rocketmq/namesrv.properties

# OCI labels of both targets (make image passes VERSION, REVISION and
# CREATED, the commit's time; the repository names no licence, so
# LICENSES says NOASSERTION unless given).
FROM ${BASE} AS labelled
ARG VERSION=1.1.0-dev
ARG REVISION=unknown
ARG CREATED
ARG LICENSES=NOASSERTION
LABEL org.opencontainers.image.title="rmqgo NameServer" \
      org.opencontainers.image.description="Apache RocketMQ NameServer and Controller in Go" \
      org.opencontainers.image.source="https://github.com/rmqgo/nameserver" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.created="${CREATED}" \
      org.opencontainers.image.licenses="${LICENSES}"

FROM labelled AS namesrv-controller
COPY --from=build /out/controller/ /usr/local/bin/
COPY --from=build --chown=65532:65532 /rootfs/etc/rocketmq/ /etc/rocketmq/
COPY --from=build --chown=65532:65532 /rootfs/data/ /data/
USER 65532:65532
ENV HOME=/data
VOLUME ["/data"]
EXPOSE 9876 9878 9879 5557
HEALTHCHECK --interval=10s --timeout=5s --start-period=15s --retries=3 \
  CMD ["/usr/local/bin/namesrv", "-c", "/etc/rocketmq/namesrv.properties", "-healthcheck"]
ENTRYPOINT ["/usr/local/bin/namesrv"]
CMD ["-c", "/etc/rocketmq/namesrv.properties"]

FROM labelled AS namesrv
COPY --from=build /out/plain/ /usr/local/bin/
COPY --from=build --chown=65532:65532 /rootfs/etc/rocketmq/ /etc/rocketmq/
COPY --from=build --chown=65532:65532 /rootfs/data/ /data/
USER 65532:65532
ENV HOME=/data
VOLUME ["/data"]
EXPOSE 9876 5557
HEALTHCHECK --interval=10s --timeout=5s --start-period=15s --retries=3 \
  CMD ["/usr/local/bin/namesrv", "-c", "/etc/rocketmq/namesrv.properties", "-healthcheck"]
ENTRYPOINT ["/usr/local/bin/namesrv"]
CMD ["-c", "/etc/rocketmq/namesrv.properties"]

# syntax=docker/dockerfile:1
#
# The NameServer image, in two targets (make image builds both):
#
#   docker build --target namesrv            -t rmqgo/namesrv .             # default build
#   docker build --target namesrv-controller -t rmqgo/namesrv-controller .  # -tags embedded_controller
#
# deploy/container/build.sh builds static binaries (CGO_ENABLED=0, the time
# zone database inside) in golang and the few files a static binary needs
# (passwd and group with the nonroot user 65532, nsswitch.conf, the CA
# bundle, /tmp); the runtime stages put them on an empty base (FROM
# scratch), so they need no registry: `make test-image` builds those stages
# from the same script run on the host and runs the image. No shell in the
# image: the entrypoint is the binary and HEALTHCHECK runs `namesrv
# -healthcheck`, which asks /healthz of the metrics listener its
# configuration names.
#
# Configuration: /etc/rocketmq/namesrv.properties (deploy/container/,
# replace it with a mount) and NAMESRV_<KEY>=value variables over it
# (NAMESRV_LISTEN_PORT=9876 sets listenPort; see README "Container image").
# State (kvConfig.db, the controller's Raft store) under /data.

ARG GO_VERSION=1.26
# BASE is the runtime stages' base: empty, or one with tools for debugging
# (a busybox nonroot image); the rootfs files go over it.
ARG BASE=scratch

FROM golang:${GO_VERSION} AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# VERSION and REVISION (make image passes the Makefile's) are what
# -version, the startup log and rocketmq_build_info name; LDFLAGS, when
# given, replaces the whole -ldflags.
ARG VERSION=1.1.0-dev
ARG REVISION=unknown
ARG LDFLAGS
RUN sh deploy/container/build.sh /out

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
COPY --from=build /out/rootfs/ /

FROM labelled AS namesrv-controller
COPY --from=build /out/controller/ /usr/local/bin/
COPY --from=build --chown=65532:65532 /out/state/etc/rocketmq/ /etc/rocketmq/
COPY --from=build --chown=65532:65532 /out/state/data/ /data/
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
COPY --from=build --chown=65532:65532 /out/state/etc/rocketmq/ /etc/rocketmq/
COPY --from=build --chown=65532:65532 /out/state/data/ /data/
USER 65532:65532
ENV HOME=/data
VOLUME ["/data"]
EXPOSE 9876 5557
HEALTHCHECK --interval=10s --timeout=5s --start-period=15s --retries=3 \
  CMD ["/usr/local/bin/namesrv", "-c", "/etc/rocketmq/namesrv.properties", "-healthcheck"]
ENTRYPOINT ["/usr/local/bin/namesrv"]
CMD ["-c", "/etc/rocketmq/namesrv.properties"]

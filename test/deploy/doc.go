// Package deploy checks the container and deployment files without a
// container engine: the Dockerfile's targets, user, ports, health check
// and entrypoint; the image's properties file; the docker-compose and
// Kubernetes files parsed as YAML, their NAMESRV_ variables and
// properties loaded through package config, and their ports, peers, probes
// and paths agreeing with each other, with the image and with the config
// defaults; and `make image` against a fake docker.
package deploy

package main

import (
	"runtime"

	"github.com/hashicorp/go-hclog"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/internal/process"
	"github.com/rmqgo/nameserver/internal/version"
)

// logStart logs what an operator checks first: the build (version, VCS
// revision), the config file and the state paths, every setting that
// differs from Java's defaults (as Java logs every setting), and one
// warning for each property of the file that no setting reads.
func logStart(logger hclog.Logger, cfg *config.NamesrvConfig, file string) {
	logger.Info("starting", "version", version.Version, "revision", version.Revision(),
		"controller_format", version.ControllerFormat, "go", runtime.Version())
	state := []any{"file", describeFile(file), "kvConfigPath", cfg.KVConfigPath}
	if cfg.EnableControllerInNamesrv {
		state = append(state, "controllerStorePath", cfg.Controller.ControllerStorePath)
	}
	logger.Info("config", state...)
	logger.Info("settings differing from the defaults", process.KeyValueArgs(cfg.NonDefault())...)
	for _, u := range cfg.Unread() {
		logger.Warn("property read by no setting, ignored", u.LogArgs()...)
	}
}

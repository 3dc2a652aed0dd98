package main

import (
	"errors"
	"flag"
	"strings"

	"vibing/internal/config"
)

// registerConfigFlag adds --config FILE to fs and returns where its value lands.
func registerConfigFlag(fs *flag.FlagSet) *string {
	return fs.String("config", "", "options `FILE` (YAML or JSON) written by the editor from setup()")
}

// loadConfig loads the config named by --config (the defaults when empty).
func loadConfig(path string) (*config.Config, error) { return config.Load(path) }

// usageExit maps a flag parse error to an exit code: -h is success.
func usageExit(err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	return exitUsage
}

// multiFlag collects a repeatable string flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(s string) error { *m = append(*m, s); return nil }

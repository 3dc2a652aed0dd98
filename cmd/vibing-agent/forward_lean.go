//go:build lean

package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// The lean build (make builds bin/vibing-agent with -tags lean) runs the
// commands of fullCommands by replacing itself with vibing-agent-full from
// its own folder: same process, same arguments, same standard streams, so
// the editor's job and Claude Code see one process as before.
func init() {
	for _, c := range fullCommands {
		name := c.name
		c.run = func(_ context.Context, args []string, io stdio) int { return forward(name, args, io) }
		c.signals = false // vibing-agent-full watches them
		register(c)
	}
}

// forward execs vibing-agent-full with the command name and args; it
// returns only when that fails.
func forward(name string, args []string, io stdio) int {
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintf(io.err, "vibing-agent: %s: cannot find this program's own folder to run %s: %v\n", name, fullBinary, err)
		return exitFail
	}
	full := filepath.Join(filepath.Dir(exe), fullBinary)
	argv := append([]string{full, name}, args...)
	err = syscall.Exec(full, argv, os.Environ())
	fmt.Fprintf(io.err, "vibing-agent: %s runs in %s, which could not be started (%v); run make in the plugin's folder to build it.\n", name, full, err)
	return exitFail
}

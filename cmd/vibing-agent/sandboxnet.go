package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"syscall"

	"vibing/internal/egress"
)

func init() {
	register(subcommand{name: "sandbox-net", summary: "(inside the sandbox) the proxy's forwarder on 127.0.0.1, then the command", run: runSandboxNet})
}

const sandboxNetUsage = `Usage: vibing-agent sandbox-net --socket PATH -- PROGRAM [ARGS...]

Runs inside the sandbox's own network namespace, which the sandbox starts
it in: listens on 127.0.0.1 there, hands every connection to the proxy's
Unix socket PATH (vibing-agent outside decides each one), and replaces
itself with PROGRAM, HTTP_PROXY, HTTPS_PROXY and ALL_PROXY naming the
listener. Not for use by hand.
`

// runSandboxNet is vibing-agent sandbox-net: the listener goes to a child
// (which serves it for as long as the sandbox lives) and this process
// becomes PROGRAM, so the CLI keeps its place as the sandbox's first
// process (hook.InsideRun).
func runSandboxNet(_ context.Context, args []string, io stdio) int {
	var socket string
	serve := false
	for len(args) > 0 && args[0] != "--" {
		switch {
		case args[0] == "--socket" && len(args) > 1:
			socket, args = args[1], args[2:]
		case args[0] == "--serve":
			serve, args = true, args[1:]
		default:
			fmt.Fprint(io.err, sandboxNetUsage)
			return exitUsage
		}
	}
	if socket == "" {
		fmt.Fprint(io.err, sandboxNetUsage)
		return exitUsage
	}
	if serve {
		l, err := net.FileListener(os.NewFile(3, "listener"))
		if err != nil {
			fmt.Fprintf(io.err, "vibing-agent sandbox-net: %v\n", err)
			return exitFail
		}
		_ = egress.Forward(l, socket)
		return exitOK
	}
	if len(args) < 2 {
		fmt.Fprint(io.err, sandboxNetUsage)
		return exitUsage
	}
	fail := func(err error) int {
		fmt.Fprintf(io.err, "vibing-agent sandbox-net: the network of the sandbox: %v\n", err)
		return exitFail
	}
	prog, err := exec.LookPath(args[1])
	if err != nil {
		return fail(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fail(err)
	}
	f, err := l.(*net.TCPListener).File()
	if err != nil {
		return fail(err)
	}
	exe, err := os.Executable()
	if err != nil {
		return fail(err)
	}
	child := exec.Command(exe, "sandbox-net", "--serve", "--socket", socket)
	child.ExtraFiles = []*os.File{f}
	child.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := child.Start(); err != nil {
		return fail(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	f.Close()
	env := egress.Env(os.Environ(), port)
	return fail(syscall.Exec(prog, args[1:], env))
}

package main

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"
	"strings"

	"vibing/internal/policy"
)

func init() {
	register(subcommand{name: "trust", summary: "trust a project's policy files so their allow rules apply", run: runTrust})
}

const trustUsage = `Usage: vibing-agent trust [--dir DIR] [--list | --revoke] [FILE ...]

A project's policy files (.vibing/policy.yaml, .claude/settings.json,
.claude/settings.local.json) are written by whoever wrote the repository: their
deny and ask rules apply at once, their allow rules and mode only after you
trusted the file's exact content. trust records each file's SHA-256 in your
state folder; any change to a file needs trusting again. With no FILE, every
project policy file that is not trusted yet is trusted (and its allow rules
are printed first, so you see what you open).

Flags:
`

const trustExamples = `
Examples:
  vibing-agent trust                       # the project of the current folder
  vibing-agent trust --list
  vibing-agent trust .vibing/policy.yaml
  vibing-agent trust --revoke .claude/settings.json
`

func runTrust(_ context.Context, args []string, io stdio) int {
	fs := flag.NewFlagSet("trust", flag.ContinueOnError)
	fs.SetOutput(io.err)
	fs.Usage = func() {
		fmt.Fprint(io.err, trustUsage)
		fs.PrintDefaults()
		fmt.Fprint(io.err, trustExamples)
	}
	configPath := registerConfigFlag(fs)
	dir := fs.String("dir", "", "the project `DIR` (default: the current folder)")
	list := fs.Bool("list", false, "list the project's policy files and their trust; change nothing")
	revoke := fs.Bool("revoke", false, "forget the trust of the named files")
	if err := fs.Parse(args); err != nil {
		return usageExit(err)
	}
	if *revoke && fs.NArg() == 0 {
		fmt.Fprintln(io.err, "vibing-agent trust: --revoke needs the files to forget")
		return exitUsage
	}
	cfg, err := loadConfig(*configPath)
	if err != nil {
		fmt.Fprintf(io.err, "vibing-agent trust: %v\n", err)
		return exitFail
	}
	ch, err := policy.Open(policy.Request{Config: cfg, ConfigFile: *configPath, Dir: *dir, NoChat: true})
	if err != nil {
		fmt.Fprintf(io.err, "vibing-agent trust: %v\n", err)
		return exitFail
	}
	var project []policy.File
	for _, f := range ch.Files {
		if f.Layer == "project" {
			project = append(project, f)
		}
	}
	if *list {
		if len(project) == 0 {
			fmt.Fprintf(io.out, "No project policy files in %s.\n", ch.Root)
		}
		for _, f := range project {
			fmt.Fprintf(io.out, "%-28s %s", f.Name, f.Trust)
			if len(f.Waiting) > 0 {
				fmt.Fprintf(io.out, "  (waiting: %s)", strings.Join(f.Waiting, ", "))
			}
			fmt.Fprintln(io.out)
		}
		return exitOK
	}
	store, err := policy.LoadTrust(ch.Places.TrustStore)
	if err != nil {
		fmt.Fprintf(io.err, "vibing-agent trust: %v\n", err)
		return exitFail
	}
	targets, code := trustTargets(ch, project, fs.Args(), *revoke, io)
	if code != exitOK {
		return code
	}
	for _, f := range targets {
		if *revoke {
			ok, err := store.Remove(f.Path)
			if err != nil {
				fmt.Fprintf(io.err, "vibing-agent trust: %v\n", err)
				return exitFail
			}
			if ok {
				fmt.Fprintf(io.out, "No longer trusted: %s\n", f.Name)
			} else {
				fmt.Fprintf(io.out, "%s was not trusted.\n", f.Name)
			}
			continue
		}
		if len(f.Waiting) > 0 {
			fmt.Fprintf(io.out, "%s opens: %s\n", f.Name, strings.Join(f.Waiting, ", "))
		}
		sum, err := store.Add(f.Path)
		if err != nil {
			fmt.Fprintf(io.err, "vibing-agent trust: %v; nothing was trusted\n", err)
			return exitFail
		}
		fmt.Fprintf(io.out, "Trusted %s (sha256 %s).\n", f.Name, sum[:16])
	}
	if len(targets) == 0 {
		fmt.Fprintln(io.out, "Nothing to trust: every project policy file is trusted already (or there is none).")
	}
	return exitOK
}

// trustTargets picks the files to trust or revoke: the named ones (each must
// be one of the project's policy files) or every untrusted one.
func trustTargets(ch *policy.Chat, project []policy.File, names []string, revoke bool, io stdio) ([]policy.File, int) {
	if len(names) == 0 {
		var out []policy.File
		for _, f := range project {
			if f.Trust != policy.Trusted {
				out = append(out, f)
			}
		}
		return out, exitOK
	}
	var out []policy.File
	for _, n := range names {
		abs, _ := filepath.Abs(n)
		found := false
		for _, f := range project {
			if f.Path == abs || f.Name == filepath.ToSlash(n) {
				out, found = append(out, f), true
				break
			}
		}
		if !found && revoke {
			out, found = append(out, policy.File{Name: n, Path: abs}), true
		}
		if !found {
			fmt.Fprintf(io.err, "vibing-agent trust: %s is not a policy file of the project %s (.vibing/policy.yaml, .claude/settings.json, .claude/settings.local.json)\n", n, ch.Root)
			return nil, exitUsage
		}
	}
	return out, exitOK
}

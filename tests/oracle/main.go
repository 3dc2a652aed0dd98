// Command oracle is make oracle (SPEC §15, issue 24): it generates -n attack
// lines from -seed, asks the engine under every rule set, runs what it
// allows for real (bash in bubblewrap under strace -f) and prints every
// escape, the false positives of the everyday corpus, and the throughput.
// It exits 1 when a line escaped.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"vibing/internal/oracle"
	"vibing/internal/session"
)

func main() {
	n := flag.Int("n", 20000, "attack lines to generate")
	seed := flag.Uint64("seed", 1, "the generator's seed")
	workers := flag.Int("workers", 2, "lines run at once")
	budget := flag.Duration("budget", 0, "stop generating after this long (0: no limit)")
	everyday := flag.String("everyday", "tests/friction/testdata/everyday.txt", "the everyday corpus (TOOL<TAB>ARG lines; the Bash ones are used)")
	decide := flag.Bool("decide", false, "read lines from stdin (one a line; \\n for a newline) and print each rule set's decision, running nothing")
	flag.Parse()
	if *decide {
		if err := decideLines(); err != nil {
			fmt.Fprintln(os.Stderr, "oracle:", err)
			os.Exit(2)
		}
		return
	}
	if err := run(*n, *seed, *workers, *budget, *everyday); err != nil {
		fmt.Fprintln(os.Stderr, "oracle:", err)
		os.Exit(2)
	}
}

func run(n int, seed uint64, workers int, budget time.Duration, everydayPath string) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if budget > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, budget)
		defer cancel()
	}
	dir, err := os.MkdirTemp("", "vibing-oracle-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if err := os.Chmod(dir, 0o755); err != nil {
		return err
	}
	w, err := oracle.NewWorld(filepath.Join(dir, "w"))
	if err != nil {
		return err
	}
	r, err := oracle.NewRunner(w)
	if err != nil {
		return err
	}
	lines, err := oracle.ReadEveryday(everydayPath)
	if err != nil {
		return err
	}
	rep, err := oracle.New(r).Run(ctx, oracle.Config{N: n, Seed: seed, Workers: workers, Everyday: lines, Log: os.Stdout, Progress: os.Stderr})
	if err != nil && rep == nil {
		return err
	}
	rep.Summary(os.Stdout)
	for _, l := range rep.FalseLines {
		fmt.Println("false positive:", strings.ReplaceAll(l, "\n", " "))
	}
	fmt.Printf("seed %d, %d lines\n", seed, rep.Lines)
	if err != nil {
		return err
	}
	if rep.Escaped() {
		os.Exit(1)
	}
	return nil
}

// decideLines prints the engine's answer to each line of stdin under every
// rule set: a quick way to see what the oracle would run.
func decideLines() error {
	dir, err := os.MkdirTemp("", "vibing-oracle-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	w, err := oracle.NewWorld(filepath.Join(dir, "w"))
	if err != nil {
		return err
	}
	var engines []*session.Engine
	for _, rs := range oracle.RuleSets {
		e, err := oracle.NewEngine(w, rs)
		if err != nil {
			return err
		}
		engines = append(engines, e)
	}
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		line := strings.ReplaceAll(sc.Text(), `\n`, "\n")
		if strings.TrimSpace(line) == "" {
			continue
		}
		fmt.Printf("%s\n", line)
		for i, e := range engines {
			d := e.Decide("Bash", map[string]any{"command": line})
			fmt.Printf("  %-16s %-5s %s\n", oracle.RuleSets[i].Name, d.Decision, d.Reason)
		}
	}
	return sc.Err()
}

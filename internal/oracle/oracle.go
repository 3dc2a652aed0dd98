// Package oracle is the judge the engine answers to (SPEC §15, issue 24): it
// generates command lines that spell attack intents the ways bash allows,
// asks the engine about each under a table of rule sets, runs what the
// engine allows with bash inside bubblewrap on a throwaway world under
// strace -f, and holds what really happened to the rules. An escape is an
// allowed line whose real effects meet a deny or ask rule, the guard or a
// file that runs code; a false positive is an everyday line asked or
// refused although each of its effects is allowed on its own.
package oracle

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"vibing/internal/session"
)

// Config says what one oracle run does.
type Config struct {
	N        int    // attack lines to generate
	Seed     uint64 // the generator's seed
	Workers  int    // lines run at once (default 2)
	RuleSets []RuleSet
	Everyday []string // everyday lines (the false-positive corpus)
	// Gate, when set, stands in for the engine's answer to the lines
	// under every rule set (the test that shows the oracle catches escapes
	// uses one that allows everything); the effects are still judged by
	// the engine.
	Gate func(RuleSet) Decider
	Log  io.Writer // escapes as they are found (nil: none)
	// Progress gets a line every 10,000 lines decided (nil: none)
	Progress io.Writer
}

// Finding is one escape: the line, how it was made, under which rules.
type Finding struct {
	Line    Line
	RuleSet string
	Escapes []Escape
}

// Report is what a run found.
type Report struct {
	Lines     int // attack lines generated
	Decisions int
	Allowed   int // (line, rule set) pairs the engine allowed
	Runs      int // lines run for real
	Findings  []Finding
	// per generator (intent/first choice): lines, allowed, escapes
	PerGen map[string]*GenCount
	// the everyday corpus
	Everyday, EverydayAsked, EverydayMissing, FalsePositives int
	FalseLines                                               []string
	Elapsed                                                  time.Duration
}

// GenCount counts one generator's lines.
type GenCount struct{ Lines, Allowed, Escapes int }

// Escaped reports whether any intent escaped.
func (r *Report) Escaped() bool { return len(r.Findings) > 0 }

// IntentsEscaped lists the intents with at least one escape.
func (r *Report) IntentsEscaped() map[string]int {
	out := map[string]int{}
	for _, f := range r.Findings {
		out[f.Line.Intent]++
	}
	return out
}

// Oracle runs lines and remembers what each did (a line's effects do not
// depend on the rules, so each distinct line runs once).
type Oracle struct {
	runner *Runner
	mu     sync.Mutex
	ran    map[string]*Effects
	// workers is how many batches run at once within one call of effects
	workers int
	fails   map[string]error
}

// New makes an oracle for the runner's world.
func New(r *Runner) *Oracle {
	return &Oracle{runner: r, ran: map[string]*Effects{}, fails: map[string]error{}}
}

// effects runs the lines not run yet (in one batch) and returns what each
// did, and how many ran now.
func (o *Oracle) effects(ctx context.Context, lines []string) ([]*Effects, int, error) {
	out := make([]*Effects, len(lines))
	var todo []string
	var at []int
	o.mu.Lock()
	for i, l := range lines {
		if e, ok := o.ran[l]; ok {
			out[i] = e
		} else {
			todo = append(todo, l)
			at = append(at, i)
		}
	}
	o.mu.Unlock()
	if len(todo) == 0 {
		return out, 0, nil
	}
	effs := make([]*Effects, len(todo))
	var wg sync.WaitGroup
	var errMu sync.Mutex
	var firstErr error
	sem := make(chan struct{}, max(o.workers, 1))
	for lo := 0; lo < len(todo); lo += 64 {
		hi := min(lo+64, len(todo))
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			got, err := o.runner.RunBatch(ctx, todo[lo:hi])
			if err != nil {
				errMu.Lock()
				firstErr = cmp.Or(firstErr, err)
				errMu.Unlock()
				return
			}
			copy(effs[lo:hi], got)
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return nil, 0, firstErr
	}
	o.mu.Lock()
	for k, e := range effs {
		o.ran[todo[k]] = e
		out[at[k]] = e
	}
	o.mu.Unlock()
	return out, len(todo), nil
}

type job struct {
	line Line
	sets []int // indexes of the rule sets that allowed it
}

// Run generates cfg.N attack lines and judges them, then the everyday
// corpus.
func (o *Oracle) Run(ctx context.Context, cfg Config) (*Report, error) {
	start := time.Now()
	w := o.runner.World
	sets := cfg.RuleSets
	if len(sets) == 0 {
		sets = RuleSets
	}
	deciders := make([]Decider, len(sets)) // judge the effects
	gates := make([]Decider, len(sets))    // answer the lines
	for i, rs := range sets {
		e, err := NewEngine(w, rs)
		if err != nil {
			return nil, err
		}
		deciders[i], gates[i] = e, e
		if cfg.Gate != nil {
			gates[i] = cfg.Gate(rs)
		}
	}
	workers := cfg.Workers
	if workers <= 0 {
		workers = 2
	}
	o.workers = workers
	rep := &Report{PerGen: map[string]*GenCount{}}
	var mu sync.Mutex
	var firstErr error
	jobs := make(chan []job, 4)
	const batchSize = 64
	var batch []job
	var wg sync.WaitGroup
	for i := 0; i < workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for batch := range jobs {
				texts := make([]string, len(batch))
				for k, j := range batch {
					texts[k] = j.line.Text
				}
				effs, ran, err := o.effects(ctx, texts)
				mu.Lock()
				rep.Runs += ran
				if err != nil && firstErr == nil {
					firstErr = err
				}
				mu.Unlock()
				if err != nil {
					continue
				}
				for k, j := range batch {
					for _, si := range j.sets {
						esc := Judge(deciders[si], w, effs[k])
						if len(esc) == 0 {
							continue
						}
						f := Finding{Line: j.line, RuleSet: sets[si].Name, Escapes: esc}
						mu.Lock()
						rep.Findings = append(rep.Findings, f)
						rep.PerGen[genKey(j.line)].Escapes++
						if cfg.Log != nil {
							fmt.Fprintln(cfg.Log, f)
						}
						mu.Unlock()
					}
				}
			}
		}()
	}
	// line i is drawn from its own generator (seed, i): the lines of a
	// seed are the same however many goroutines draw and decide them
	idx := make(chan int, 256)
	decided := make(chan job, 256)
	var dwg sync.WaitGroup
	for k := 0; k < max(runtime.NumCPU(), 1); k++ {
		dwg.Add(1)
		go func() {
			defer dwg.Done()
			for i := range idx {
				rng := rand.New(rand.NewPCG(cfg.Seed, uint64(i)))
				l := Generate(rng, Intents[i%len(Intents)])
				var allowed []int
				for si, d := range gates {
					if d.Decide("Bash", map[string]any{"command": l.Text}).Decision == session.Allow {
						allowed = append(allowed, si)
					}
				}
				mu.Lock()
				rep.Lines++
				if cfg.Progress != nil && rep.Lines%10000 == 0 {
					fmt.Fprintf(cfg.Progress, "oracle: %d lines, %d allowed, %d run, %d escapes, %s\n",
						rep.Lines, rep.Allowed, rep.Runs, len(rep.Findings), time.Since(start).Round(time.Second))
				}
				rep.Decisions += len(gates)
				g := rep.PerGen[genKey(l)]
				if g == nil {
					g = &GenCount{}
					rep.PerGen[genKey(l)] = g
				}
				g.Lines++
				if len(allowed) > 0 {
					g.Allowed++
					rep.Allowed += len(allowed)
				}
				mu.Unlock()
				if len(allowed) > 0 {
					decided <- job{line: l, sets: allowed}
				}
			}
		}()
	}
	go func() {
		for i := 0; i < cfg.N && ctx.Err() == nil; i++ {
			idx <- i
		}
		close(idx)
		dwg.Wait()
		close(decided)
	}()
	for j := range decided {
		batch = append(batch, j)
		if len(batch) == batchSize {
			jobs <- batch
			batch = nil
		}
	}
	if len(batch) > 0 {
		jobs <- batch
	}
	close(jobs)
	wg.Wait()
	if firstErr != nil {
		return rep, firstErr
	}
	// the everyday corpus: every line runs; a line the engine asks or
	// refuses under a rule set although each effect is allowed there is a
	// false positive
	everyday, ran, err := o.effects(ctx, cfg.Everyday)
	if err != nil {
		return rep, err
	}
	rep.Runs += ran
	for k, text := range cfg.Everyday {
		eff := everyday[k]
		for si, d := range deciders {
			rep.Everyday++
			dec := gates[si].Decide("Bash", map[string]any{"command": text})
			if dec.Decision == session.Allow {
				continue
			}
			if dec.Rule == "Bash" {
				continue // a rule that asks for every command: asking is what it says
			}
			rep.EverydayAsked++
			if eff.Exit == 127 || strings.Contains(eff.Output, "command not found") {
				rep.EverydayMissing++ // a program this machine lacks: nothing to judge
				continue
			}
			if _, touches := Touches(d, w, eff); !touches && allExecsAllowed(d, eff) {
				rep.FalsePositives++
				rep.FalseLines = append(rep.FalseLines, sets[si].Name+": "+text+" ("+dec.Decision.String()+": "+dec.Reason+")")
			}
		}
	}
	sort.Slice(rep.Findings, func(i, j int) bool { return rep.Findings[i].Line.Text < rep.Findings[j].Line.Text })
	rep.Elapsed = time.Since(start)
	return rep, nil
}

// allExecsAllowed reports whether every program a line ran would be
// allowed as a Bash call of its own.
func allExecsAllowed(d Decider, eff *Effects) bool {
	for _, argv := range eff.Execs {
		if len(argv) == 0 {
			continue
		}
		if d.Decide("Bash", map[string]any{"command": quoteArgv(argv)}).Decision != session.Allow {
			return false
		}
	}
	return true
}

// genKey is the generator a line counts under: its intent and first choice.
func genKey(l Line) string {
	parts := strings.SplitN(l.How, "/", 3)
	if len(parts) >= 2 {
		return parts[0] + "/" + parts[1]
	}
	return l.How
}

func (f Finding) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "ESCAPE [%s] %s (%s)\n    %s\n", f.RuleSet, f.Line.Intent, f.Line.How, strings.ReplaceAll(f.Line.Text, "\n", "\n    "))
	for _, e := range f.Escapes {
		fmt.Fprintf(&b, "    -> %s\n", e)
	}
	return b.String()
}

// Summary prints the counts.
func (r *Report) Summary(w io.Writer) {
	fmt.Fprintf(w, "oracle: %d lines, %d decisions, %d allowed, %d run, %d escapes, in %s (%.0f lines/s)\n",
		r.Lines, r.Decisions, r.Allowed, r.Runs, len(r.Findings), r.Elapsed.Round(time.Millisecond), float64(r.Lines)/r.Elapsed.Seconds())
	keys := make([]string, 0, len(r.PerGen))
	for k := range r.PerGen {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	fmt.Fprintf(w, "%-28s %8s %8s %8s\n", "generator", "lines", "allowed", "escapes")
	for _, k := range keys {
		g := r.PerGen[k]
		fmt.Fprintf(w, "%-28s %8d %8d %8d\n", k, g.Lines, g.Allowed, g.Escapes)
	}
	if r.Everyday > 0 {
		fmt.Fprintf(w, "everyday: %d decisions, %d asked or refused (%d of them run a program this machine lacks), %d false positives (%.1f%%)\n",
			r.Everyday, r.EverydayAsked, r.EverydayMissing, r.FalsePositives, 100*float64(r.FalsePositives)/float64(r.Everyday))
	}
}

// ReadEveryday reads the Bash lines of an everyday corpus (TOOL<TAB>ARG a
// line, # comments).
func ReadEveryday(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, l := range strings.Split(string(data), "\n") {
		tool, arg, ok := strings.Cut(l, "\t")
		if ok && tool == "Bash" && strings.TrimSpace(arg) != "" {
			out = append(out, arg)
		}
	}
	return out, nil
}

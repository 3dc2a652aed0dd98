// Package friction measures how often vibing stops an everyday agent call
// compared with Claude Code's own default permission mode (issue 29).
//
// TestFriction is slow (it runs the real claude CLI over the whole corpus),
// so it only runs with VIBING_FRICTION=1: `make friction`. It writes
// RESULTS.md beside this file and reports; it never fails on the numbers.
package friction

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"vibing/internal/fakeapi"
	"vibing/internal/testdeps"
)

// readmeRules is the example frontmatter at the top of README.md, verbatim.
const readmeRules = `permissions_mode: default
permissions_allow: ["Read(**)", "Edit(src/**)", "Bash(npm:*)"]
permissions_ask: ["Bash(git push:*)", "WebFetch(github.com)"]
permissions_deny: ["Bash(rm -rf)", "Read(.env)"]
`

// call is one corpus line.
type call struct {
	n    int    // position in the corpus, from 0
	tool string // Bash, Read, Edit or Write
	arg  string // the command line, or the path relative to the project
}

func (c call) String() string { return c.tool + ": " + c.arg }

func loadCorpus(t *testing.T) []call { return loadCorpusFile(t, "everyday.txt") }

// loadCorpusFile reads a corpus of testdata.
func loadCorpusFile(t *testing.T, name string) []call {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var out []call
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		tool, arg, ok := strings.Cut(line, "\t")
		if !ok {
			t.Fatalf("corpus line without a tab: %q", line)
		}
		out = append(out, call{n: len(out), tool: tool, arg: arg})
	}
	return out
}

// input is the tool input of c in the project dir.
func (c call) input(dir string) map[string]any {
	p := filepath.Join(dir, c.arg)
	switch c.tool {
	case "Bash":
		return map[string]any{"command": c.arg, "description": "everyday step"}
	case "Read":
		return map[string]any{"file_path": p}
	case "Edit":
		return map[string]any{"file_path": p, "old_string": marker(c.n), "new_string": fmt.Sprintf("changed_%d", c.n)}
	case "Write":
		return map[string]any{"file_path": p, "content": fmt.Sprintf("// written by step %d\nexport const x%d = %d;\n", c.n, c.n, c.n)}
	}
	panic("unknown tool " + c.tool)
}

func marker(n int) string { return fmt.Sprintf("marker_%d", n) }

// project makes a throwaway project in which every corpus call is harmless:
// src/ with the files the calls name (each Edit target holding its marker),
// a package.json whose scripts are `true`, a go module, a git repository.
func project(t *testing.T, dir string, calls []call) {
	t.Helper()
	files := map[string]string{
		"package.json":     `{"name":"demo","version":"1.0.0","scripts":{"test":"true","build":"true","lint":"true","format":"true","typecheck":"true","test:unit":"true"}}` + "\n",
		"go.mod":           "module demo\n\ngo 1.21\n",
		"main.go":          "package main\n\nfunc main() {}\n",
		"README.md":        "# demo\n",
		"requirements.txt": "",
		"tsconfig.json":    "{}\n",
		"script.py":        "print('hello')\n",
		"src/app.js":       "function sum(a, b) { return a + b; }\n// TODO: more\nconsole.log(sum(1, 2));\n",
		"src/util.js":      "var foo = 1;\nexport function add(a, b) { return a + b; }\n",
		"src/main.go":      "package src\n\nfunc Sum(a, b int) int { return a + b }\n",
		"src/lib.go":       "package src\n\nfunc x() int { return 1 }\n",
		"src/script.py":    "import sys\nprint('sum', 1 + 2)\n",
		"src/models.py":    "def model():\n    return 1\n",
		"src/config.json":  "{\"a\": 1}\n",
	}
	for _, c := range calls {
		if c.tool != "Read" && c.tool != "Edit" {
			continue
		}
		content := files[c.arg]
		if content == "" {
			content = "// " + c.arg + "\n"
		}
		if c.tool == "Edit" {
			content += marker(c.n) + "\n"
		}
		files[c.arg] = content
	}
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"}, {"config", "user.email", "f@example.invalid"}, {"config", "user.name", "friction"},
		{"add", "-A"}, {"commit", "-q", "-m", "init"}, {"commit", "-q", "--allow-empty", "-m", "second"},
	} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

func claudeBin(t *testing.T) string {
	if p := os.Getenv("VIBING_TEST_CLAUDE_BIN"); p != "" {
		return p
	}
	p := filepath.Join(repoRoot(), ".deps", "bin", "claude")
	if _, err := os.Stat(p); err != nil {
		testdeps.Missing(t, "the claude CLI is not installed (%v; or set $VIBING_TEST_CLAUDE_BIN)", err)
	}
	return p
}

// cliOutcome is what Claude Code did with one call.
type cliOutcome struct {
	denied  bool   // refused for lack of permission (listed in permission_denials)
	errored bool   // the tool_result is an error
	result  string // the start of the tool_result text
	seen    bool   // a tool_result came back at all
}

// runCLI runs `claude -p` once, in its own fresh project, with the calls
// scripted one a turn (Edit and Write targets read first, as the CLI wants),
// and returns each call's outcome by corpus position.
func runCLI(t *testing.T, bin, settings string, all, calls []call) map[int]cliOutcome {
	root := t.TempDir()
	dir, home := filepath.Join(root, "project"), filepath.Join(root, "home")
	for _, d := range []string{dir, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	project(t, dir, all)
	var turns []fakeapi.Turn
	for i, c := range calls {
		if c.tool == "Edit" || (c.tool == "Write" && exists(filepath.Join(dir, c.arg))) {
			turns = append(turns, fakeapi.Turn{Tools: []fakeapi.ToolCall{{ID: fmt.Sprintf("toolu_pre_%d", i), Name: "Read", Input: map[string]any{"file_path": filepath.Join(dir, c.arg)}}}})
		}
	}
	for _, c := range calls {
		turns = append(turns, fakeapi.Turn{Tools: []fakeapi.ToolCall{{ID: fmt.Sprintf("toolu_fr_%d", c.n), Name: c.tool, Input: c.input(dir)}}})
		if c.tool == "Bash" && strings.HasPrefix(c.arg, "cd ") {
			// the CLI's shell keeps its folder from call to call: back to the
			// project root, unscored, so that the next call runs where it would alone
			turns = append(turns, fakeapi.Turn{Tools: []fakeapi.ToolCall{{ID: fmt.Sprintf("toolu_cd_%d", c.n), Name: "Bash", Input: map[string]any{"command": "cd " + dir, "description": "back to the root"}}}})
		}
	}
	api := fakeapi.New(turns...)
	defer api.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	args := []string{"-p", "do the everyday steps", "--output-format", "json"}
	if settings != "" {
		args = append(args, "--settings", settings)
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"HOME="+home, "XDG_STATE_HOME="+filepath.Join(home, "state"), "XDG_CONFIG_HOME="+filepath.Join(home, "config"),
		"ANTHROPIC_BASE_URL="+api.URL, "ANTHROPIC_API_KEY=test", "IS_SANDBOX=1",
		"DISABLE_TELEMETRY=1", "DISABLE_AUTOUPDATER=1", "DISABLE_ERROR_REPORTING=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "CLAUDE_CODE_ENABLE_TELEMETRY=0")
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		t.Logf("claude: %v; stderr %s", err, stderr.String())
	}
	var res struct {
		Denials []struct {
			ID string `json:"tool_use_id"`
		} `json:"permission_denials"`
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("claude output is not JSON: %v\n%s\nstderr %s", err, out.String(), stderr.String())
	}
	if api.TurnsServed() != len(turns) {
		t.Errorf("the CLI took %d of %d scripted turns", api.TurnsServed(), len(turns))
	}
	outcomes := map[int]cliOutcome{}
	for _, d := range res.Denials {
		var n int
		if _, err := fmt.Sscanf(d.ID, "toolu_fr_%d", &n); err == nil {
			o := outcomes[n]
			o.denied = true
			outcomes[n] = o
		}
	}
	// the last main request carries the whole conversation: every tool_result
	reqs := api.MainRequests()
	if len(reqs) > 0 {
		var body struct {
			Messages []struct {
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		_ = json.Unmarshal([]byte(reqs[len(reqs)-1].Body), &body)
		for _, m := range body.Messages {
			var blocks []struct {
				Type    string          `json:"type"`
				ID      string          `json:"tool_use_id"`
				IsError bool            `json:"is_error"`
				Content json.RawMessage `json:"content"`
			}
			if json.Unmarshal(m.Content, &blocks) != nil {
				continue
			}
			for _, b := range blocks {
				var n int
				if b.Type != "tool_result" {
					continue
				}
				if _, err := fmt.Sscanf(b.ID, "toolu_fr_%d", &n); err != nil {
					continue
				}
				o := outcomes[n]
				o.seen, o.errored, o.result = true, b.IsError, resultText(b.Content)
				outcomes[n] = o
			}
		}
	}
	return outcomes
}

func resultText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		var parts []struct {
			Text string `json:"text"`
		}
		_ = json.Unmarshal(raw, &parts)
		for _, p := range parts {
			s += p.Text
		}
	}
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 100 {
		s = s[:100] + "…"
	}
	return s
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

// vibingDecisions runs `vibing-agent check` with the README's example rules
// for every call, in a fresh project, and returns allow / ask / deny by
// corpus position, with the rule and reason.
func vibingDecisions(t *testing.T, calls []call) map[int][3]string {
	root := t.TempDir()
	dir, home := filepath.Join(root, "project"), filepath.Join(root, "home")
	for _, d := range []string{dir, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	project(t, dir, calls)
	bin := filepath.Join(root, "vibing-agent")
	build := exec.Command("go", "build", "-tags", "lean", "-o", bin, "vibing/cmd/vibing-agent")
	build.Dir = repoRoot()
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build vibing-agent: %v\n%s", err, out)
	}
	chat := filepath.Join(root, "chat.md")
	if err := os.WriteFile(chat, []byte("---\nvibing.nvim: true\n"+readmeRules+"---\n\n## User\n\nhello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := map[int][3]string{}
	for _, c := range calls {
		in, _ := json.Marshal(c.input(dir))
		cmd := exec.Command(bin, "check", "--chat", chat, "--cwd", dir, "--tool", c.tool, "--input", string(in))
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "HOME="+home, "XDG_STATE_HOME="+filepath.Join(home, "state"), "XDG_CONFIG_HOME="+filepath.Join(home, "config"))
		data, err := cmd.Output()
		if err != nil {
			t.Fatalf("check %s: %v\n%s", c, err, data)
		}
		var d struct{ Decision, Rule, Reason string }
		if err := json.Unmarshal(data, &d); err != nil {
			t.Fatalf("check %s: %v\n%s", c, err, data)
		}
		out[c.n] = [3]string{d.Decision, d.Rule, d.Reason}
	}
	return out
}

// cliVersion is `claude --version`.
func cliVersion(bin string) string {
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(out))
}

// batch is how many calls one CLI session scripts.
const batch = 40

// cliRules are the README's rules as Claude Code's own settings (its
// WebFetch rule spelled as Claude Code spells a domain).
const cliRules = `{"permissions": {"defaultMode": "default",
  "allow": ["Read(**)", "Edit(src/**)", "Bash(npm:*)"],
  "ask": ["Bash(git push:*)", "WebFetch(domain:github.com)"],
  "deny": ["Bash(rm -rf)", "Read(.env)"]}}
`

// measureCLI runs the calls through the CLI in batches, four at a time,
// each batch in its own fresh project.
func measureCLI(t *testing.T, bin, settings string, calls []call) map[int]cliOutcome {
	cli := map[int]cliOutcome{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4)
	for i := 0; i < len(calls); i += batch {
		part := calls[i:min(i+batch, len(calls))]
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			res := runCLI(t, bin, settings, calls, part)
			mu.Lock()
			defer mu.Unlock()
			for n, o := range res {
				cli[n] = o
			}
		}()
	}
	wg.Wait()
	return cli
}

func TestFriction(t *testing.T) {
	if os.Getenv("VIBING_FRICTION") == "" {
		t.Skip("slow: runs the real claude CLI over the corpus; VIBING_FRICTION=1 (make friction) runs it")
	}
	bin := claudeBin(t)
	calls := loadCorpus(t)
	start := time.Now()

	// (1) Claude Code's default mode, no rules; and, for comparison, with the
	// README's rules as its own settings
	cli := measureCLI(t, bin, "", calls)
	settings := filepath.Join(t.TempDir(), "settings.json")
	if err := os.WriteFile(settings, []byte(cliRules), 0o644); err != nil {
		t.Fatal(err)
	}
	cliR := measureCLI(t, bin, settings, calls)

	// (2) vibing with the README's example rules
	vib := vibingDecisions(t, calls)

	var cliStops, cliRStops, vibStops, vibAsk, vibDeny, unseen int
	var stricter, looser, stricterR []call
	for _, c := range calls {
		if cliR[c.n].denied {
			cliRStops++
		}
		if vib[c.n][0] != "allow" && !cliR[c.n].denied {
			stricterR = append(stricterR, c)
		}
	}
	for _, c := range calls {
		o := cli[c.n]
		if !o.seen || !cliR[c.n].seen {
			unseen++
			t.Errorf("no tool_result for %s", c)
		}
		cs := o.denied
		vs := vib[c.n][0] != "allow"
		if cs {
			cliStops++
		}
		switch vib[c.n][0] {
		case "ask":
			vibAsk++
		case "deny":
			vibDeny++
		}
		if vs {
			vibStops++
		}
		if vs && !cs {
			stricter = append(stricter, c)
		}
		if cs && !vs {
			looser = append(looser, c)
		}
	}
	t.Logf("%d calls in %s: Claude Code default stops %d, vibing stops %d (ask %d, deny %d); vibing stricter on %d, looser on %d",
		len(calls), time.Since(start).Round(time.Second), cliStops, vibStops, vibAsk, vibDeny, len(stricter), len(looser))
	for _, c := range stricter {
		t.Logf("vibing stricter: %s — %s %s: %s", c, vib[c.n][0], vib[c.n][1], vib[c.n][2])
	}

	var b strings.Builder
	fmt.Fprintf(&b, "# Friction measurement (issue 29)\n\n")
	fmt.Fprintf(&b, "Generated by `make friction` (tests/friction) on %s with `claude` %s, offline against the fake Messages API.\n\n",
		time.Now().UTC().Format("2006-01-02"), cliVersion(bin))
	fmt.Fprintf(&b, "Corpus: tests/friction/testdata/everyday.txt, %d calls (%s).\n\n", len(calls), countTools(calls))
	b.WriteString("- **Claude Code default**: `claude -p` with no hook, no settings, no allow rules, default permission mode; a call it would ask about is refused in `-p` mode and listed in `permission_denials`.\n")
	b.WriteString("- **vibing**: `vibing-agent check` with the example rules at the top of README.md (default mode):\n\n```yaml\n" + readmeRules + "```\n\n")
	b.WriteString("| | calls | runs | prompts or refuses |\n|---|---:|---:|---:|\n")
	fmt.Fprintf(&b, "| Claude Code, default mode | %d | %d | %d |\n", len(calls), len(calls)-cliStops, cliStops)
	fmt.Fprintf(&b, "| vibing, README example rules | %d | %d | %d (ask %d, deny %d) |\n", len(calls), len(calls)-vibStops, vibStops, vibAsk, vibDeny)
	fmt.Fprintf(&b, "| for comparison: Claude Code with the README rules as its settings | %d | %d | %d |\n\n", len(calls), len(calls)-cliRStops, cliRStops)
	fmt.Fprintf(&b, "vibing is stricter than Claude Code's default mode on %d calls and more permissive on %d. ", len(stricter), len(looser))
	fmt.Fprintf(&b, "Against Claude Code given the same rules (`--settings`: %s), vibing is stricter on %d calls (below).\n\n", "`"+strings.Join(strings.Fields(cliRules), " ")+"`", len(stricterR))
	if unseen > 0 {
		fmt.Fprintf(&b, "**%d calls got no tool_result from the CLI; the run is incomplete.**\n\n", unseen)
	}
	b.WriteString("## Where vibing is stricter than Claude Code's default mode, by why\n\n")
	writeGroups(&b, stricter)
	b.WriteString("\n## Where vibing is stricter than Claude Code with the same rules, by why\n\n")
	writeGroups(&b, stricterR)
	b.WriteString("\n## vibing's decisions where it is stricter than the default mode\n")
	b.WriteString("\n| call | vibing | rule | reason |\n|---|---|---|---|\n")
	for _, c := range stricter {
		v := vib[c.n]
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", cell(c.String()), v[0], ruleCell(v[1]), cell(v[2]))
	}
	writeCalls(&b, calls, cli, cliR, vib)
	if err := os.WriteFile("RESULTS.md", []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeGroups lists calls grouped by why.
func writeGroups(b *strings.Builder, calls []call) {
	groups := map[string][]call{}
	var order []string
	for _, c := range calls {
		w := why(c)
		if groups[w] == nil {
			order = append(order, w)
		}
		groups[w] = append(groups[w], c)
	}
	for _, w := range order {
		fmt.Fprintf(b, "- %s (%d):", w, len(groups[w]))
		for i, c := range groups[w] {
			sep := ","
			if i == 0 {
				sep = ""
			}
			fmt.Fprintf(b, "%s %s", sep, "`"+c.arg+"`")
		}
		b.WriteString("\n")
	}
}

// writeCalls is the table of every call.
func writeCalls(b *strings.Builder, calls []call, cli, cliR map[int]cliOutcome, vib map[int][3]string) {
	b.WriteString("\n## Every call\n\n| # | call | Claude Code default | Claude Code, README rules | vibing | vibing rule |\n|---:|---|---|---|---|---|\n")
	for _, c := range calls {
		o := cli[c.n]
		cc := "runs"
		if o.denied {
			cc = "refused (no permission)"
		} else if !o.seen {
			cc = "no result"
		} else if o.errored {
			cc = "runs (tool error)"
		}
		ccR := "runs"
		if cliR[c.n].denied {
			ccR = "refused"
		}
		fmt.Fprintf(b, "| %d | %s | %s | %s | %s | %s |\n", c.n+1, cell(c.String()), cc, ccR, vib[c.n][0], ruleCell(vib[c.n][1]))
	}
}

func countTools(calls []call) string {
	m := map[string]int{}
	for _, c := range calls {
		m[c.tool]++
	}
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return m[keys[i]] > m[keys[j]] })
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%d %s", m[k], k))
	}
	return strings.Join(parts, ", ")
}

func cell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return "`" + strings.ReplaceAll(s, "`", "'") + "`"
}

func ruleCell(r string) string {
	if r == "" {
		return "(the mode)"
	}
	return cell(r)
}

// why sorts a call on which vibing is stricter into the reason it is: what
// vibing's read-only list for the default mode (internal/command/readsonly.go)
// leaves out, and whether it leaves it out on purpose.
func why(c call) string {
	a := c.arg
	f := strings.Fields(a)
	switch {
	case c.tool != "Bash":
		return "not a Bash line"
	case strings.HasPrefix(a, "npm "):
		return "gap: a line that joins a rule-allowed part (Bash(npm:*)) with read-only parts asks: the mode passes only lines that read through and through"
	case strings.Contains(a, "> src/"):
		return "by design: Edit(src/**) allows the file tools, not a shell redirect into src/"
	case strings.Contains(a, "| xargs"):
		return "by design: xargs runs a program its input names"
	case strings.HasPrefix(a, "git diff") || strings.HasPrefix(a, "git show") || strings.HasPrefix(a, "git blame") ||
		(strings.HasPrefix(a, "git log") && strings.Contains(a, " -p")):
		return "by design: git diff, show, blame and log -p print what the repository holds, earlier versions included, where no path names a file; they pass as reads only while no Read deny or ask rule names a file in the repository, and Read(.env) names .env in every folder"
	case len(f) > 1 && f[0] == "git":
		return "gap: a listing git subcommand (branch, tag, remote -v, stash list) is not in the read-only list"
	case f[0] == "sed":
		return "gap: sed -n … p is not in the read-only list (sed as such can write: -i, w)"
	case strings.HasSuffix(a, "--version"):
		return "gap: an interpreter's --version is not in the read-only list (the interpreter as such runs code)"
	default:
		return "gap: a system-information program (date, whoami, uname) is not in the read-only list"
	}
}

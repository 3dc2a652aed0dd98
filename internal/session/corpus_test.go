package session_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"vibing/internal/session"
)

// newRichFixture is newFixture with the files the class corpora look at:
//
//	$PROJ/.env, $PROJ/config/.env, $PROJ/config/app.yaml
//	$PROJ/secrets/key.pem
//	$PROJ/src/app/main.go, $PROJ/notebooks/a.ipynb
//	$PROJ/.git/config, $PROJ/.git/hooks/pre-commit.sample
//	$PROJ/CLAUDE.md, $PROJ/.claude/settings.json, $PROJ/.claude/commands/x.md
//	$PROJ/.github/workflows/ci.yml, $PROJ/.gitignore
//	$HOME/.bashrc, $HOME/.ssh/authorized_keys
//	$TMP/outside/notes/a.txt
func newRichFixture(t testing.TB) fixture {
	t.Helper()
	f := newFixture(t)
	for _, p := range []string{
		"proj/.env", "proj/config/.env", "proj/config/app.yaml", "proj/secrets/key.pem",
		"proj/src/app/main.go", "proj/notebooks/a.ipynb", "proj/.git/config", "proj/.git/hooks/pre-commit.sample",
		"proj/CLAUDE.md", "proj/.claude/settings.json", "proj/.claude/commands/x.md",
		"proj/.github/workflows/ci.yml", "proj/.gitignore", "home/.bashrc", "home/.ssh/authorized_keys",
		"outside/notes/a.txt",
	} {
		full := filepath.Join(f.tmp, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

// runCorpus runs a table of cases from testdata: attacks (want ask or deny,
// or not_allow) and everyday calls (want allow), at least min of each.
func runCorpus(t *testing.T, name string, min int) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var cases []tcase
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatalf("testdata/%s: %v", name, err)
	}
	attacks, everyday := 0, 0
	seen := map[string]bool{}
	for _, tc := range cases {
		if seen[tc.Name] {
			t.Errorf("duplicate case name %q", tc.Name)
		}
		seen[tc.Name] = true
		switch {
		case tc.Want == session.Allow:
			everyday++
		case tc.Want != "" || tc.NotAllow:
			attacks++
		default:
			t.Errorf("case %q asserts nothing (set want or not_allow)", tc.Name)
		}
	}
	if attacks < min || everyday < min {
		t.Fatalf("testdata/%s has %d attacks and %d everyday cases, want at least %d of each", name, attacks, everyday, min)
	}
	f := newRichFixture(t) // the cases never change the tree: one fixture for all
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			t.Parallel()
			tc.run(t, f)
		})
	}
}

// Edit and Write rules cover every file-writing tool (class 5).
func TestFileToolsCorpus(t *testing.T) { t.Parallel(); runCorpus(t, "filetools.json", 10) }

// Read rules cover Grep, Glob, LS and NotebookRead (class 6).
func TestSearchCorpus(t *testing.T) { t.Parallel(); runCorpus(t, "search.json", 10) }

// Tools that run a command are matched as Bash (class 17a).
func TestCommandToolsCorpus(t *testing.T) { t.Parallel(); runCorpus(t, "commands.json", 10) }

// Files that run code or pull in files by themselves ask in every mode (class 17b).
func TestAutorunCorpus(t *testing.T) { t.Parallel(); runCorpus(t, "autorun.json", 10) }

// The guard: commands that write while looking read-only, writes into a
// guarded folder's parent, writes that never name the guarded path (class 11).
func TestGuardCorpus(t *testing.T) { t.Parallel(); runCorpus(t, "guard.json", 10) }

// A file rule that fires on a Bash line says which file the line touches.
func TestFileReasonCorpus(t *testing.T) { t.Parallel(); runCorpus(t, "reasons.json", 3) }

// Patterns that start with **/ match at depth 0 (the top of the working
// folder) under every spelling of the path, for every file tool and for the
// words of a Bash line.
func TestDepthZeroCorpus(t *testing.T) { t.Parallel(); runCorpus(t, "depth0.json", 10) }

// What the engine cannot see through, and folders read whole, ask where a
// person can answer (once) and are refused where none can; a line that also
// names what a deny rule covers is refused.
func TestUnseenAsksCorpus(t *testing.T) { t.Parallel(); runCorpus(t, "unseen.json", 10) }

// A Bash line that only reads inside the working folder is, for the mode, a
// Read of what it names: it runs without a prompt in default, acceptEdits,
// plan and dontAsk modes; anything that writes, runs a program, reaches out
// or cannot be seen through still asks.
func TestReadOnlyBashCorpus(t *testing.T) { t.Parallel(); runCorpus(t, "readonly.json", 10) }

// What the oracle (internal/oracle, SPEC §15) found running lines for real:
// text bash evaluates as code in names and subscripts, redirections and
// operands computed at run time or given as patterns, cd into a pattern,
// links to folders that hold a secret, programs named by a pattern, and
// the files that run code the engine did not list. Each row failed on the
// engine before the fix; the everyday rows must stay allowed.
func TestOracleFindingsCorpus(t *testing.T) { t.Parallel(); runCorpus(t, "oracle.json", 10) }

// A Bash line made of commands an allow rule or a session grant covers and
// reads the mode allows (npm test 2>&1 | tail -20) runs without a prompt;
// a write, a delete, unseen code, the network or a read outside in any part
// still asks or is refused.
func TestMixedLineCorpus(t *testing.T) { t.Parallel(); runCorpus(t, "mixed.json", 10) }

// git show, diff, log -p and blame print what the repository holds, earlier
// versions included: they pass as reads only when no Read deny or ask rule
// names a file in the repository, and never with an option that reads or
// writes a file outside it or runs a program.
func TestGitContentCorpus(t *testing.T) { t.Parallel(); runCorpus(t, "gitcontent.json", 10) }

// A pattern word whose stars a ".." after them takes out of the cleaned path
// (src/**/../x, h**x/../y) made the analysis panic (FuzzDecideTwin's input):
// the names it reaches are now everything below the folder its first
// pattern component stands in, climbed once per "..". Attacks must not be
// allowed; the everyday ** patterns stay allowed.
func TestGlobClimbCorpus(t *testing.T) { t.Parallel(); runCorpus(t, "globclimb.json", 4) }

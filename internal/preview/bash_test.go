package preview_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vibing/internal/command"
	"vibing/internal/preview"
)

var update = flag.Bool("update", false, "rewrite testdata/bash_effects.txt from the current output")

type effectCase struct {
	command string
	effects []string
}

// readEffectCases reads testdata/bash_effects.txt: "$ command" (further
// lines until the next "$ " or "- " line belong to the command, for
// here-documents), then "- effect" lines.
func readEffectCases(t *testing.T, file string) (header []string, cases []effectCase) {
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var cur *effectCase
	for _, l := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		switch {
		case strings.HasPrefix(l, "$ "):
			cases = append(cases, effectCase{command: l[2:]})
			cur = &cases[len(cases)-1]
		case cur == nil:
			header = append(header, l)
		case l == "-":
		case strings.HasPrefix(l, "- "):
			cur.effects = append(cur.effects, l[2:])
		default:
			cur.command += "\n" + l
		}
	}
	return header, cases
}

func projectDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"scripts":{"build":"tsc -p .","test":"jest --ci"}}`), 0o644))
	must(t, os.Mkdir(filepath.Join(dir, "dist"), 0o755))
	return dir
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestBashEffects(t *testing.T) {
	file := filepath.Join("testdata", "bash_effects.txt")
	header, cases := readEffectCases(t, file)
	if len(cases) < 30 {
		t.Fatalf("only %d command lines in %s, want at least 30", len(cases), file)
	}
	env := command.Env{Cwd: projectDir(t), Home: "/home/me"}
	var out []string
	out = append(out, header...)
	for _, tc := range cases {
		got := preview.Effects(command.Prepare("Bash", map[string]any{"command": tc.command}, env))
		out = append(out, "$ "+tc.command)
		if len(got) == 0 {
			out = append(out, "-")
		}
		for _, e := range got {
			out = append(out, "- "+e)
		}
		if !*update && strings.Join(got, "\n") != strings.Join(tc.effects, "\n") {
			t.Errorf("Effects(%q):\n got: %q\nwant: %q", tc.command, got, tc.effects)
		}
	}
	if *update {
		must(t, os.WriteFile(file, []byte(strings.Join(out, "\n")+"\n"), 0o644))
	}
}

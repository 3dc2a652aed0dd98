package matcher_test

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"vibing/internal/command"
	"vibing/internal/defaults"
	"vibing/internal/matcher"
)

// TestShellStart checks that a Bash line's relative paths resolve from the
// folder the shell is in (Env.Shell) while rules stay anchored at Cwd.
func TestShellStart(t *testing.T) {
	t.Parallel()
	const p = "/work/proj"
	tests := []struct {
		name  string
		shell []string
		lost  bool
		line  string
		rule  string
		list  string
		want  bool
	}{
		{"shell in config: cat prod.env", []string{p + "/config"}, false, "cat prod.env", "Read(config/prod.env)", "deny", true},
		{"shell in config: ./prod.env", []string{p + "/config"}, false, "head ./prod.env", "Read(config/prod.env)", "deny", true},
		{"shell in config: write", []string{p + "/config"}, false, "echo x > prod.env", "Edit(config/**)", "deny", true},
		{"shell in config: other file", []string{p + "/config"}, false, "cat other.env", "Read(config/prod.env)", "deny", false},
		{"shell in project (control)", nil, false, "cat prod.env", "Read(config/prod.env)", "deny", false},
		{"shell in sub: ../config", []string{p + "/sub"}, false, "cat ../config/prod.env", "Read(config/prod.env)", "deny", true},
		{"shell in config: cd .. first", []string{p + "/config"}, false, "cd .. && cat prod.env", "Read(config/prod.env)", "deny", false},
		{"shell in config: absolute path", []string{p + "/config"}, false, "cat /work/proj/README.md", "Read(config/prod.env)", "deny", false},
		{"shell in src: rule anchored at cwd", []string{p + "/src"}, false, "cat a.go", "Read(src/**)", "deny", true},
		{"shell relative spelled from cwd", []string{"config"}, false, "cat prod.env", "Read(config/prod.env)", "deny", true},
		{"one of two folders", []string{p, p + "/config"}, false, "cat prod.env", "Read(config/prod.env)", "deny", true},
		{"one of two folders: allow does not cover", []string{p, p + "/config"}, false, "echo x > out.txt", "Write(config/**)", "allow", false},
		{"lost: relative path fails closed", nil, true, "cat prod.env", "Read(config/prod.env)", "deny", true},
		{"lost: ask fires too", nil, true, "cat notes.txt", "Read(config/**)", "ask", true},
		{"lost: no relative path", nil, true, "ls", "Read(config/prod.env)", "deny", false},
		{"lost: absolute path", nil, true, "cat /work/proj/x", "Read(config/prod.env)", "deny", false},
		{"lost: absolute cd first", nil, true, "cd /work/proj && cat prod.env", "Read(config/prod.env)", "deny", false},
		{"lost: absolute cd into config", nil, true, "cd /work/proj/config && cat prod.env", "Read(config/prod.env)", "deny", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			env := command.Env{Cwd: p, Home: "/home/u", Shell: tt.shell, ShellLost: tt.lost}
			c := command.Prepare("Bash", map[string]any{"command": tt.line}, env)
			if c.Err != nil {
				t.Fatalf("Prepare(%q): %v", tt.line, c.Err)
			}
			r := mustRule(t, tt.rule)
			if got := r.Match(c, parseList(tt.list)); got != tt.want {
				t.Errorf("%s rule %s .Match(%q) with the shell in %v (lost %v) = %v, want %v", tt.list, tt.rule, tt.line, tt.shell, tt.lost, got, tt.want)
			}
		})
	}
}

// TestShellStartAllowWrite checks an allow rule anchored at Cwd covering a
// write made from the shell's folder.
func TestShellStartAllowWrite(t *testing.T) {
	t.Parallel()
	env := command.Env{Cwd: "/work/proj", Home: "/home/u", Shell: []string{"/work/proj/src"}}
	c := command.Prepare("Bash", map[string]any{"command": "echo x > out.txt"}, env)
	if len(c.Writes) != 1 || c.Writes[0].Abs != "/work/proj/src/out.txt" {
		t.Fatalf("Writes = %+v, want /work/proj/src/out.txt", c.Writes)
	}
	if rel := c.Writes[0].Abs; rel == "/work/proj/out.txt" {
		t.Errorf("write resolved from the working directory, not the shell's folder")
	}
}

// TestShellRm checks the destructive-command rules resolve a relative rm
// target from the shell's folder.
func TestShellRm(t *testing.T) {
	t.Parallel()
	env := command.Env{Cwd: "/w/u/proj", Home: "/w/u", Shell: []string{"/w/u/proj/sub"}}
	c := command.Prepare("Bash", map[string]any{"command": "rm -rf ../../proj"}, env)
	if name, ok := defaults.Deny(c); !ok {
		t.Errorf("Deny(rm -rf ../../proj from ~/proj/sub) = %q, false; want the working folder refused", name)
	}
	env.Shell = nil
	c = command.Prepare("Bash", map[string]any{"command": "rm -rf ../../proj"}, env)
	if name, ok := defaults.Deny(c); ok {
		t.Errorf("Deny(rm -rf ../../proj from ~/proj) = %q, true; want not refused (it is /w/proj)", name)
	}
}

// TestShellSymlinkedCwd checks that the physical folder the CLI reports is
// spelled from a working directory named through a symlink, so allow rules
// anchored there still cover it and deny rules still fire.
func TestShellSymlinkedCwd(t *testing.T) {
	t.Parallel()
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	real := filepath.Join(tmp, "real")
	if err := os.MkdirAll(filepath.Join(real, "config"), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(tmp, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	env := command.Env{Cwd: link, Home: "/home/u", Shell: []string{filepath.Join(real, "config")}}
	c := command.Prepare("Bash", map[string]any{"command": "cat prod.env > copy.txt"}, env)
	if deny := mustRule(t, "Read(config/prod.env)"); !deny.Match(c, matcher.DenyList) {
		t.Error("deny Read(config/prod.env) does not fire on cat prod.env from the physical config folder")
	}
	if len(c.Writes) != 1 || c.Writes[0].Abs != filepath.Join(link, "config", "copy.txt") {
		t.Errorf("Writes = %+v, want the target spelled from the working directory %s", c.Writes, link)
	}
	dirs, lost := c.ShellAfter()
	if want := []string{filepath.Join(link, "config")}; !reflect.DeepEqual(dirs, want) || lost {
		t.Errorf("ShellAfter() = %v, %v; want %v, false", dirs, lost, want)
	}
}

// TestShellAfter checks where a line may leave a shell that keeps its
// folder: where it started (the line or its cd may fail) and where it may
// end; lost when that is only known at run time.
func TestShellAfter(t *testing.T) {
	t.Parallel()
	const p = "/work/proj"
	long := make([]byte, 300<<10)
	for i := range long {
		long[i] = 'a'
	}
	tests := []struct {
		name  string
		tool  string
		input map[string]any
		shell []string
		dirs  []string
		lost  bool
	}{
		{"cd", "Bash", cmd("cd config"), nil, []string{p, p + "/config"}, false},
		{"cd and", "Bash", cmd("cd config && make"), nil, []string{p, p + "/config"}, false},
		{"subshell", "Bash", cmd("(cd config && make)"), nil, []string{p}, false},
		{"pipeline: first element", "Bash", cmd("cd config | cat"), nil, []string{p}, false},
		{"pipeline: last element (lastpipe)", "Bash", cmd("true | cd config"), nil, []string{p, p + "/config"}, false},
		{"no cd", "Bash", cmd("ls -la"), nil, []string{p}, false},
		{"pushd", "Bash", cmd("pushd config"), nil, []string{p, p + "/config"}, false},
		{"absolute", "Bash", cmd("cd /tmp"), nil, []string{p, "/tmp"}, false},
		{"from the shell's folder", "Bash", cmd("cd ../src"), []string{p + "/config"}, []string{p + "/config", p + "/src"}, false},
		{"dynamic cd", "Bash", cmd(`cd "$D"`), nil, []string{p}, true},
		{"cd to a command's output", "Bash", cmd(`cd "$(ls -d conf*)"`), nil, []string{p}, true},
		{"source", "Bash", cmd("source env.sh"), nil, []string{p}, true},
		{"popd with no stack", "Bash", cmd("popd"), nil, []string{p}, true},
		{"not parsed", "Bash", cmd("cd config && ("), nil, nil, true},
		{"too long", "Bash", cmd(string(long)), nil, []string{p}, true},
		{"not a string", "Bash", map[string]any{"command": 3}, nil, []string{p}, true},
		{"file tool", "Read", map[string]any{"file_path": p + "/x"}, []string{p + "/config"}, []string{p + "/config"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			env := command.Env{Cwd: p, Home: "/home/u", Shell: tt.shell}
			dirs, lost := command.Prepare(tt.tool, tt.input, env).ShellAfter()
			if lost != tt.lost || (tt.dirs != nil && !reflect.DeepEqual(dirs, tt.dirs)) {
				t.Errorf("ShellAfter(%v) = %v, %v; want %v, %v", tt.input, dirs, lost, tt.dirs, tt.lost)
			}
		})
	}
}

func cmd(line string) map[string]any { return map[string]any{"command": line} }

package matcher_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vibing/internal/command"
	"vibing/internal/matcher"
)

func texts(c *command.Call) string {
	var out []string
	for _, cmd := range c.Commands {
		out = append(out, cmd.Text)
	}
	return strings.Join(out, " | ")
}

func TestPrepareBashCommands(t *testing.T) {
	t.Parallel()
	tests := []struct{ cmd, want string }{
		{"npm test && git status", "npm test | git status"},
		{"a || b; c & d\ne", "a | b | c | d | e"},
		{"(a; b) | { c; }", "a | b | c"},
		{"echo $(rm x) `ls`", "rm x | ls | echo $(rm x) `ls`"},
		{"diff <(ls a) >(cat)", "ls a | cat | diff <(ls a) >(cat)"},
		{"X=$(whoami) FOO=1 npm test", "whoami | npm test"},
		{"echo hi > $(mktemp)", "mktemp | echo hi"},
		{"cat <<< $(id)", "id | cat"},
		{"if a; then b; elif c; then d; else e; fi", "a | b | c | d | e"},
		{"for f in $(ls); do rm $f; done", "ls | rm $f"},
		{"while a; do b; done", "a | b"},
		{"case $x in a) b;; *) c;; esac", "b | c"},
		{"f() { rm -rf x; }; f", "rm -rf x | f"},
		{"sh -c 'rm -rf /tmp/x; ls'", "sh -c rm -rf /tmp/x; ls | rm -rf /tmp/x | ls"},
		{"bash -lc \"git push\"", "bash -lc git push | git push"},
		{"eval 'rm x'", "eval rm x | rm x"},
		{"r\\m -f a", "rm -f a"},
		{"'rm' -f a", "rm -f a"},
		{"\"r\"m -f a", "rm -f a"},
		{"$'\\x72m' -f a", "rm -f a"},
		{"export PATH=/tmp:$PATH", "export PATH=/tmp:$PATH"},
		{"[[ -f $(rm x) ]]", "rm x"},
		{"echo $((1 + $(rm y)))", "rm y | echo $((1 + $(rm y)))"},
		{"bash <<EOF\nrm -rf z\nEOF", "bash | rm -rf z"},
		{"time rm q", "rm q"},
		{"xargs sh -c 'rm a'", "xargs sh -c rm a | rm a"},
	}
	for _, tt := range tests {
		c := bash(tt.cmd)
		if c.Err != nil {
			t.Errorf("Prepare(%q) error: %v", tt.cmd, c.Err)
			continue
		}
		if got := texts(c); got != tt.want {
			t.Errorf("Prepare(%q) commands = %q, want %q", tt.cmd, got, tt.want)
		}
	}
}

func TestPrepareWrappers(t *testing.T) {
	t.Parallel()
	tests := []struct{ cmd, args string }{
		{"sudo rm -rf x", "rm -rf x"},
		{"sudo -u root -E rm x", "rm x"},
		{"env -i FOO=1 BAR=2 rm x", "rm x"},
		{"nice -n 10 rm x", "rm x"},
		{"nice -10 rm x", "rm x"},
		{"nohup rm x", "rm x"},
		{"timeout -s KILL 5 rm x", "rm x"},
		{"timeout --signal=KILL 5s rm x", "rm x"},
		{"xargs -0 -n 1 rm", "rm"},
		{"command rm x", "rm x"},
		{"exec rm x", "rm x"},
		{"builtin cd x", "cd x"},
		{"stdbuf -oL rm x", "rm x"},
		{"ionice -c 3 rm x", "rm x"},
		{"sudo env nice rm x", "rm x"},
		{"sudo -i", "sudo -i"},
		{"env", "env"},
	}
	for _, tt := range tests {
		c := bash(tt.cmd)
		if len(c.Commands) != 1 {
			t.Errorf("Prepare(%q) = %d commands, want 1", tt.cmd, len(c.Commands))
			continue
		}
		if got := strings.Join(c.Commands[0].Args, " "); got != tt.args {
			t.Errorf("Prepare(%q) Args = %q, want %q", tt.cmd, got, tt.args)
		}
	}
}

func TestPrepareWritesModifies(t *testing.T) {
	t.Parallel()
	tests := []struct {
		cmd              string
		writes, modifies string
	}{
		{"echo a > x", "/work/proj/x", "/work/proj/x"},
		{"echo a >> ~/x 2>&1", "/home/u/x", "/home/u/x"},
		{"ls &> /tmp/o", "/tmp/o", "/tmp/o"},
		{"ls >| o", "/work/proj/o", "/work/proj/o"},
		{"cat <> o", "/work/proj/o", "/work/proj/o"},
		{"ls | tee -a a b", "/work/proj/a /work/proj/b", "/work/proj/a /work/proj/b /work/proj/a /work/proj/b"},
		{"rm -rf a b", "", "/work/proj/a /work/proj/b"},
		{"mv a /tmp/b", "", "/work/proj/a /tmp/b"},
		{"sed -i 's/a/b/' f", "", "/work/proj/f"},
		{"chmod 600 k", "", "/work/proj/k"},
		{"dd if=/dev/zero of=disk.img", "", "/work/proj/disk.img"},
		{"cd sub && echo > f", "/work/proj/sub/f", "/work/proj/sub/f"},
		{"ls 2>&1 >/dev/null", "/dev/null", "/dev/null"},
	}
	join := func(ps []command.Path) string {
		var out []string
		for _, p := range ps {
			out = append(out, p.Abs)
		}
		return strings.Join(out, " ")
	}
	for _, tt := range tests {
		c := bash(tt.cmd)
		if got := join(c.Writes); got != tt.writes {
			t.Errorf("Prepare(%q) Writes = %q, want %q", tt.cmd, got, tt.writes)
		}
		if got := join(c.Modifies); got != tt.modifies {
			t.Errorf("Prepare(%q) Modifies = %q, want %q", tt.cmd, got, tt.modifies)
		}
	}
}

func TestPrepareErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		tool  string
		input map[string]any
	}{
		{"Bash", map[string]any{}},
		{"Bash", map[string]any{"command": 3}},
		{"Bash", map[string]any{"command": "echo 'x"}},
		{"Bash", map[string]any{"command": "if then fi"}},
		{"Bash", map[string]any{"command": "sh -c 'echo \"x'"}},
		{"Bash", map[string]any{"command": strings.Repeat("eval ", 8) + "x"}},
		{"Read", map[string]any{}},
		{"Read", map[string]any{"file_path": ""}},
		{"Edit", map[string]any{"file_path": []any{"a"}}},
		{"NotebookEdit", map[string]any{"file_path": "a.ipynb"}},
		{"WebFetch", map[string]any{"url": ""}},
		{"WebFetch", map[string]any{"url": "http://[::1"}},
		{"WebFetch", map[string]any{"url": "https:///path"}},
		{"WebFetch", map[string]any{"url": "https://exa mple.com/"}},
		{"WebFetch", map[string]any{"url": "evil.com/x"}},
		{"WebFetch", map[string]any{"url": "//evil.com/x"}},
		{"WebFetch", map[string]any{"url": "https:///x"}},
		{"WebFetch", map[string]any{"url": "http:/x"}},
		{"WebFetch", map[string]any{"url": "http:evil.com/x"}},
		{"WebFetch", map[string]any{"url": "mailto:x"}},
		{"WebFetch", map[string]any{"url": "file:///etc/passwd"}},
		{"WebFetch", map[string]any{"url": "https://:443/"}},
		{"Grep", map[string]any{"pattern": 1}},
	}
	for _, tt := range tests {
		if c := command.Prepare(tt.tool, tt.input, testEnv); c.Err == nil {
			t.Errorf("Prepare(%s, %v).Err = nil, want an error", tt.tool, tt.input)
		}
	}
}

func TestPrepareURL(t *testing.T) {
	t.Parallel()
	tests := []struct{ url, scheme, host string }{
		{"https://GitHub.com./x", "https", "github.com"},
		{"HTTPS://user:pw@github.com:8443/x", "https", "github.com"},
		{"https://bücher.de/", "https", "xn--bcher-kva.de"},
		{"http://[::1]:80/", "http", "[::1]"},
		{"http://[::FFFF:a9fe:a9fe]/", "http", "169.254.169.254"},
		{"http://2852039166/", "http", "169.254.169.254"},
		{"http://127.1./", "http", "127.0.0.1"},
		{"ftp://Example.com/x", "ftp", "example.com"},
	}
	for _, tt := range tests {
		c := command.Prepare("WebFetch", map[string]any{"url": tt.url}, testEnv)
		if c.Scheme != tt.scheme || c.Host != tt.host {
			t.Errorf("Prepare(%q) = scheme %q host %q (err %v), want %q %q", tt.url, c.Scheme, c.Host, c.Err, tt.scheme, tt.host)
		}
	}
}

func TestResolvePathSymlinks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	dir, _ = filepath.EvalSymlinks(dir)
	proj := filepath.Join(dir, "proj")
	outside := filepath.Join(dir, "outside")
	for _, d := range []string{proj, outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(proj, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(proj, "loop"), filepath.Join(proj, "loop")); err != nil {
		t.Fatal(err)
	}
	env := command.Env{Cwd: proj, Home: dir}
	tests := []struct{ in, abs, real string }{
		{"a.txt", proj + "/a.txt", proj + "/a.txt"},
		{"link/new/file", proj + "/link/new/file", outside + "/new/file"},
		{"sub/../link", proj + "/link", outside},
		{"~/outside", outside, outside},
		{"loop/x", proj + "/loop/x", proj + "/loop/x"},
	}
	for _, tt := range tests {
		p := command.ResolvePath(tt.in, env)
		if p.Abs != tt.abs || p.Real != tt.real {
			t.Errorf("ResolvePath(%q) = {%q %q}, want {%q %q}", tt.in, p.Abs, p.Real, tt.abs, tt.real)
		}
	}
	in := command.Prepare("Read", map[string]any{"file_path": "link/x"}, env)
	if in.InsideCwd() {
		t.Errorf("InsideCwd(link/x) = true, want false (symlink leaves the project)")
	}
	if !command.Prepare("Read", map[string]any{"file_path": "a/b"}, env).InsideCwd() {
		t.Errorf("InsideCwd(a/b) = false, want true")
	}
	allow := mustRule(t, "Read(link/**)")
	if allow.Match(in, matcher.AllowList) {
		t.Errorf("allow Read(link/**) matched a path whose target is outside the project")
	}
	deny := mustRule(t, "Read("+outside+"/**)")
	if !deny.Match(in, matcher.DenyList) {
		t.Errorf("deny Read(%s/**) did not fire on a symlink into it", outside)
	}
	if !mustRule(t, "Write(link/**)").Match(command.Prepare("Bash", map[string]any{"command": "echo > link/f"}, env), matcher.DenyList) {
		t.Errorf("deny Write(link/**) did not fire on a redirect into it")
	}
}

func TestResolvePathDotDotThroughSymlink(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	proj, outside := filepath.Join(root, "proj"), filepath.Join(root, "outside", "in")
	for _, d := range []string{proj, outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(proj, "link")); err != nil {
		t.Fatal(err)
	}
	env := command.Env{Cwd: proj, Home: root}
	tests := []struct{ in, abs, real string }{
		{"link/../x", proj + "/x", root + "/outside/x"},           // the system goes through the link
		{"link/../../proj/y", root + "/proj/y", root + "/proj/y"}, // and back in
		{"nope/../x", proj + "/x", proj + "/x"},                   // an unresolvable folder: the clean reading
		{"a..b/c", proj + "/a..b/c", proj + "/a..b/c"},            // not a ".." component
	}
	for _, tt := range tests {
		got := command.ResolvePath(tt.in, env)
		if got.Abs != tt.abs || got.Real != tt.real {
			t.Errorf("ResolvePath(%q) = {%s %s}, want {%s %s}", tt.in, got.Abs, got.Real, tt.abs, tt.real)
		}
	}
}

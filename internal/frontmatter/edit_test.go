package frontmatter_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	adrg "github.com/adrg/frontmatter"

	"vibing/internal/frontmatter"
)

var update = flag.Bool("u", false, "rewrite the golden files in testdata/golden")

// op is one edit of a golden case.
type op struct {
	kind        string // add, remove, set, delete
	key, value  string
	wantChanged bool
}

func (o op) apply(d *frontmatter.Document) (bool, error) {
	switch o.kind {
	case "add":
		return d.AddToList(o.key, o.value)
	case "remove":
		return d.RemoveFromList(o.key, o.value)
	case "set":
		return true, d.Set(o.key, o.value)
	case "delete":
		return d.Delete(o.key)
	}
	panic("unknown op " + o.kind)
}

var goldenCases = []struct {
	name string
	chat string
	ops  []op
}{
	{"basic-add-flow", "basic.md", []op{
		{"add", frontmatter.KeyAllow, "Grep", true},
		{"add", frontmatter.KeyAllow, "Grep", false},
		{"add", frontmatter.KeyAsk, "Bash(npm:*)", false},
		{"add", frontmatter.KeyDeny, "*.key", true},
		{"add", frontmatter.KeyDeny, "Bash(echo a, b: c #d)", true},
	}},
	{"basic-remove-flow", "basic.md", []op{
		{"remove", frontmatter.KeyAsk, "Bash", true},
		{"remove", frontmatter.KeyAsk, "Bash", false},
		{"remove", frontmatter.KeyDeny, "Bash(rm -rf)", true},
	}},
	{"basic-set-delete", "basic.md", []op{
		{"set", frontmatter.KeyMode, "plan", true},
		{"set", frontmatter.KeySessionID, "9b1d-new", true},
		{"delete", frontmatter.KeyPreset, "", true},
		{"delete", frontmatter.KeyPreset, "", false},
		{"set", frontmatter.KeyModel, "opus", true},
	}},
	{"block-add", "block.md", []op{
		{"add", frontmatter.KeyAllow, "Bash(git commit:*)", true},
		{"add", frontmatter.KeyDeny, "Bash(curl:*)", true},
		{"add", frontmatter.KeyAsk, "WebFetch(*.example.org)", true},
	}},
	{"block-remove", "block.md", []op{
		{"remove", frontmatter.KeyAllow, "Grep", true},
		{"remove", frontmatter.KeyAllow, "Bash(git status:*)", true},
		{"remove", frontmatter.KeyAsk, "Bash", true},
		{"remove", frontmatter.KeyDeny, "Write(*.key)", true},
	}},
	{"block-set-delete", "block.md", []op{
		{"set", frontmatter.KeyMode, "acceptEdits", true},
		{"set", frontmatter.KeySessionID, "new: id # not a comment", true},
		{"delete", "notes", "", true},
		{"delete", "folded", "", true},
		{"set", frontmatter.KeyPreset, "locked", true},
	}},
	{"crlf", "crlf.md", []op{
		{"add", frontmatter.KeyAllow, "Edit", true},
		{"add", frontmatter.KeyAsk, "WebFetch", true},
		{"add", frontmatter.KeyDeny, "Bash(sudo:*)", true},
		{"set", frontmatter.KeyMode, "default", true},
		{"remove", frontmatter.KeyAllow, "Read", true},
	}},
	{"alias", "alias.md", []op{
		{"set", frontmatter.KeyMode, "plan", true},
		{"add", frontmatter.KeyAllow, "Grep", true},
		{"delete", frontmatter.KeyMode, "", true},
	}},
	{"single-string-remove", "alias.md", []op{
		{"remove", frontmatter.KeyAllow, "Read", true},
	}},
	{"empty", "empty.md", []op{
		{"add", frontmatter.KeyAllow, "Read", true},
		{"set", frontmatter.KeyMode, "plan", true},
		{"set", frontmatter.KeyVibing, "true", true},
	}},
	{"indented", "indented.md", []op{
		{"add", frontmatter.KeyAllow, "Grep", true},
		{"add", frontmatter.KeyAsk, "Bash", true},
		{"set", frontmatter.KeyMode, "plan", true},
	}},
}

// splitChat returns the frontmatter lines (fences included) and the body.
func splitChat(t *testing.T, content []byte) (fm, body []byte) {
	t.Helper()
	lines := bytes.SplitAfter(content, []byte("\n"))
	for i := 1; i < len(lines); i++ {
		if string(bytes.TrimRight(lines[i], " \t\r\n")) == "---" {
			n := len(bytes.Join(lines[:i+1], nil))
			return content[:n], content[n:]
		}
	}
	t.Fatalf("no closing fence in %q", content)
	return nil, nil
}

func withoutKey(t *testing.T, content []byte, key string) []byte {
	t.Helper()
	d, err := frontmatter.Parse(content)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if _, err := d.Delete(key); err != nil {
		t.Fatalf("Delete(%q): %v", key, err)
	}
	return d.Bytes()
}

func TestEditGolden(t *testing.T) {
	for _, tc := range goldenCases {
		t.Run(tc.name, func(t *testing.T) {
			orig, err := os.ReadFile(filepath.Join("testdata", "chats", tc.chat))
			if err != nil {
				t.Fatal(err)
			}
			_, origBody := splitChat(t, orig)
			cur := orig
			for _, o := range tc.ops {
				d, err := frontmatter.Parse(cur)
				if err != nil {
					t.Fatalf("Parse: %v", err)
				}
				changed, err := o.apply(d)
				if err != nil {
					t.Fatalf("%s(%q, %q): %v", o.kind, o.key, o.value, err)
				}
				if changed != o.wantChanged {
					t.Errorf("%s(%q, %q) changed = %v, want %v", o.kind, o.key, o.value, changed, o.wantChanged)
				}
				next := d.Bytes()
				if !changed && !bytes.Equal(next, cur) {
					t.Errorf("%s(%q, %q) reported no change but changed the file", o.kind, o.key, o.value)
				}
				if _, body := splitChat(t, next); !bytes.Equal(body, origBody) {
					t.Errorf("%s(%q, %q) changed the body:\n%q\nwant\n%q", o.kind, o.key, o.value, body, origBody)
				}
				if a, b := withoutKey(t, cur, o.key), withoutKey(t, next, o.key); !bytes.Equal(a, b) {
					t.Errorf("%s(%q, %q) changed bytes outside the key:\nbefore %q\nafter  %q", o.kind, o.key, o.value, a, b)
				}
				checkEffect(t, o, next)
				if bytes.Contains(orig, []byte("\r\n")) && bytes.Count(next, []byte("\n")) != bytes.Count(next, []byte("\r\n")) {
					t.Errorf("%s(%q, %q) wrote a bare LF into a CRLF file: %q", o.kind, o.key, o.value, next)
				}
				cur = next
			}
			golden := filepath.Join("testdata", "golden", tc.name+".md")
			if *update {
				if err := os.WriteFile(golden, cur, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -u to create it)", err)
			}
			if !bytes.Equal(cur, want) {
				t.Errorf("result differs from %s:\n%s\n--- want ---\n%s", golden, cur, want)
			}
		})
	}
}

// checkEffect re-reads the edited file and checks the edit took effect.
func checkEffect(t *testing.T, o op, content []byte) {
	t.Helper()
	d, err := frontmatter.Parse(content)
	if err != nil {
		t.Fatalf("%s(%q, %q) wrote an unparsable file: %v\n%s", o.kind, o.key, o.value, err, content)
	}
	s, err := d.Settings()
	if err != nil {
		t.Fatalf("Settings after %s(%q, %q): %v", o.kind, o.key, o.value, err)
	}
	lists := map[string][]string{frontmatter.KeyAllow: s.Allow, frontmatter.KeyAsk: s.Ask, frontmatter.KeyDeny: s.Deny}
	scalars := map[string]string{frontmatter.KeyMode: s.Mode, frontmatter.KeySessionID: s.SessionID,
		frontmatter.KeyPreset: s.Preset, frontmatter.KeyModel: s.Model}
	has := func(l []string, v string) bool {
		for _, x := range l {
			if x == v {
				return true
			}
		}
		return false
	}
	switch o.kind {
	case "add":
		if !has(lists[o.key], o.value) {
			t.Errorf("after add(%q, %q) the list is %q", o.key, o.value, lists[o.key])
		}
	case "remove":
		if has(lists[o.key], o.value) {
			t.Errorf("after remove(%q, %q) the list is %q", o.key, o.value, lists[o.key])
		}
	case "set":
		if got, ok := scalars[o.key]; ok && got != o.value {
			t.Errorf("after set(%q, %q) Settings has %q", o.key, o.value, got)
		}
	case "delete":
		if got := scalars[o.key]; got != "" {
			t.Errorf("after delete(%q) Settings has %q", o.key, got)
		}
	}
}

// TestSplitMatchesAdrg checks that our fence detection agrees with
// github.com/adrg/frontmatter on every fixture: same YAML, same body.
func TestSplitMatchesAdrg(t *testing.T) {
	chats, _ := filepath.Glob(filepath.Join("testdata", "chats", "*.md"))
	if len(chats) == 0 {
		t.Fatal("no fixtures")
	}
	for _, path := range chats {
		t.Run(filepath.Base(path), func(t *testing.T) {
			content, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var adrgYAML []byte
			format := adrg.NewFormat("---", "---", func(b []byte, _ interface{}) error {
				adrgYAML = append([]byte(nil), b...)
				return nil
			})
			adrgBody, err := adrg.MustParse(bytes.NewReader(content), nil, format)
			if err != nil {
				t.Fatalf("adrg.MustParse: %v", err)
			}
			d, err := frontmatter.Parse(content)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			lines := d.FrontmatterLines()
			ourYAML := strings.Join(lines[1:len(lines)-1], "\n")
			theirs := strings.TrimRight(strings.ReplaceAll(string(adrgYAML), "\r\n", "\n"), "\n")
			if ourYAML != theirs {
				t.Errorf("frontmatter = %q, adrg/frontmatter reads %q", ourYAML, theirs)
			}
			if _, body := splitChat(t, content); !bytes.Equal(body, adrgBody) {
				t.Errorf("body = %q, adrg/frontmatter reads %q", body, adrgBody)
			}
			if !bytes.Equal(d.Bytes(), content) {
				t.Errorf("Bytes() without edits = %q, want the input %q", d.Bytes(), content)
			}
		})
	}
}

func TestFrontmatterLines(t *testing.T) {
	content := []byte("---\r\nvibing.nvim: true\r\npermissions_allow: [Read]\r\n---\r\nbody\r\n")
	d, err := frontmatter.Parse(content)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"---", "vibing.nvim: true", "permissions_allow: [Read]", "---"}
	if got := d.FrontmatterLines(); !reflect.DeepEqual(got, want) {
		t.Errorf("FrontmatterLines() = %q, want %q", got, want)
	}
}

func TestQuoting(t *testing.T) {
	values := []string{
		"Bash(npm:*)", "*.key", "Bash(rm -rf)", "&anchor", "!tag", "[x]", "{x}", "'q'", `"dq"`,
		"a: b", "a #b", "#c", "- dash", "? q", "| lit", "> fold", "%pct", "@at", "`tick`",
		"yes", "null", "~", "123", "1e3", "true", "Bash(echo \"hi\" \\ back)", "tab\there",
		"WebFetch(xn--bcher-kva.example)", "Ünïcødé", "/tool:Bash:git push origin (?!main).*/",
		"Bash(a, b)", "Read(src/**/*.{ts,tsx})", "a\u2028b", "bell\a",
	}
	for _, v := range values {
		for _, start := range []string{"permissions_allow: [Read]\n", "permissions_allow:\n  - Read\n", ""} {
			d, err := frontmatter.Parse([]byte("---\n" + start + "---\n"))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := d.AddToList(frontmatter.KeyAllow, v); err != nil {
				t.Errorf("AddToList(%q) on %q: %v", v, start, err)
				continue
			}
			s, err := d.Settings()
			if err != nil {
				t.Errorf("Settings after AddToList(%q): %v\n%s", v, err, d.Bytes())
				continue
			}
			if got := s.Allow[len(s.Allow)-1]; got != v {
				t.Errorf("AddToList(%q) on %q reads back %q\n%s", v, start, got, d.Bytes())
			}
		}
		d, _ := frontmatter.Parse([]byte("---\nmodel: x # keep\n---\n"))
		if err := d.Set(frontmatter.KeyModel, v); err != nil {
			t.Errorf("Set(%q): %v", v, err)
			continue
		}
		if s, err := d.Settings(); err != nil || s.Model != v {
			t.Errorf("Set(%q) reads back %q, %v\n%s", v, s.Model, err, d.Bytes())
		}
	}
}

func TestEditRefusals(t *testing.T) {
	tests := []struct {
		name, content string
		edit          func(*frontmatter.Document) error
	}{
		{"empty rule", "---\npermissions_allow: []\n---\n", func(d *frontmatter.Document) error {
			_, err := d.AddToList(frontmatter.KeyAllow, "")
			return err
		}},
		{"multi-line rule", "---\n---\n", func(d *frontmatter.Document) error {
			_, err := d.AddToList(frontmatter.KeyDeny, "Bash(a)\npermissions_mode: bypassPermissions")
			return err
		}},
		{"multi-line value", "---\n---\n", func(d *frontmatter.Document) error {
			return d.Set(frontmatter.KeyMode, "plan\npermissions_allow: [Bash]")
		}},
		{"list is a map", "---\npermissions_allow: {a: b}\n---\n", func(d *frontmatter.Document) error {
			_, err := d.AddToList(frontmatter.KeyAllow, "Read")
			return err
		}},
		{"anchored list used elsewhere", "---\npermissions_allow: &a [Read]\nx: *a\n---\n", func(d *frontmatter.Document) error {
			_, err := d.AddToList(frontmatter.KeyAllow, "Grep")
			return err
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := frontmatter.Parse([]byte(tc.content))
			if err != nil {
				t.Fatal(err)
			}
			if err := tc.edit(d); err == nil {
				t.Errorf("edit of %q succeeded, want an error; result:\n%s", tc.content, d.Bytes())
			}
			if got := string(d.Bytes()); got != tc.content {
				t.Errorf("a refused edit changed the document to %q", got)
			}
		})
	}
}

package frontmatter_test

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"vibing/internal/frontmatter"
)

// FuzzEdit checks, for any chat and rule, that an edit that succeeds leaves a
// file that parses, holds the rule, keeps the body and every other setting,
// and that nothing panics.
func FuzzEdit(f *testing.F) {
	chats, _ := filepath.Glob(filepath.Join("testdata", "chats", "*.md"))
	for _, c := range chats {
		data, err := os.ReadFile(c)
		if err != nil {
			f.Fatal(err)
		}
		for _, tc := range goldenCases {
			for _, o := range tc.ops {
				if o.value != "" {
					f.Add(data, o.value)
				}
			}
		}
	}
	f.Add([]byte("---\npermissions_deny: [a, 'b', \"c\"] # x\n---\n"), "*.key")
	f.Fuzz(func(t *testing.T, content []byte, rule string) {
		d, err := frontmatter.Parse(content)
		if err != nil {
			return
		}
		before, beforeErr := d.Settings()
		_, body := splitChatLoose(content)
		for _, key := range []string{frontmatter.KeyDeny, frontmatter.KeyAllow} {
			d, _ := frontmatter.Parse(content)
			if _, err := d.AddToList(key, rule); err != nil {
				if !bytes.Equal(d.Bytes(), content) {
					t.Fatalf("a failed AddToList(%q, %q) changed the document", key, rule)
				}
				continue
			}
			out := d.Bytes()
			nd, err := frontmatter.Parse(out)
			if err != nil {
				t.Fatalf("AddToList(%q, %q) wrote an unparsable file: %v\n%q", key, rule, err, out)
			}
			if _, b := splitChatLoose(out); !bytes.Equal(b, body) {
				t.Fatalf("AddToList(%q, %q) changed the body", key, rule)
			}
			after, err := nd.Settings()
			if beforeErr != nil {
				continue
			}
			if err != nil {
				t.Fatalf("Settings after AddToList(%q, %q): %v", key, rule, err)
			}
			list, other := after.Deny, after.Allow
			oldOther := before.Allow
			if key == frontmatter.KeyAllow {
				list, other, oldOther = after.Allow, after.Deny, before.Deny
			}
			if len(list) == 0 || !contains(list, rule) {
				t.Fatalf("AddToList(%q, %q): list is now %q", key, rule, list)
			}
			if !reflect.DeepEqual(other, oldOther) || after.Mode != before.Mode || !reflect.DeepEqual(after.Ask, before.Ask) {
				t.Fatalf("AddToList(%q, %q) changed other settings: %+v -> %+v", key, rule, before, after)
			}
		}
	})
}

func contains(l []string, v string) bool {
	for _, x := range l {
		if x == v {
			return true
		}
	}
	return false
}

// splitChatLoose is splitChat for fuzzing: it never fails.
func splitChatLoose(content []byte) (fm, body []byte) {
	lines := bytes.SplitAfter(content, []byte("\n"))
	for i := 1; i < len(lines); i++ {
		if string(bytes.TrimRight(lines[i], " \t\r\n")) == "---" {
			n := len(bytes.Join(lines[:i+1], nil))
			return content[:n], content[n:]
		}
	}
	return content, nil
}

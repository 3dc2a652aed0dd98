package rpc_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"vibing/internal/frontmatter"
	"vibing/internal/rpc"
)

func TestSaveChat(t *testing.T) {
	t.Parallel()
	base := []string{"---", "vibing.nvim: true", "permissions_deny: []", "---", "", "## User", "", "hello"}
	with := func(lines []string, i int, s string) []string { c := slices.Clone(lines); c[i] = s; return c }
	tests := []struct {
		name       string
		disk       []string // nil: no file
		base       []string
		buffer     []string
		wantOK     bool
		wantMerged bool
		wantDisk   []string
	}{
		{"unchanged disk", base, base, append(slices.Clone(base), "mine"), true, false, append(slices.Clone(base), "mine")},
		{"no baseline", base, nil, append(slices.Clone(base), "mine"), true, false, append(slices.Clone(base), "mine")},
		{"new file", nil, nil, base, true, false, base},
		{"a rule added on disk is kept", with(base, 2, `permissions_deny: ["Bash(rm:*)"]`), base, append(slices.Clone(base), "mine"),
			true, true, append(with(base, 2, `permissions_deny: ["Bash(rm:*)"]`), "mine")},
		{"body changed on disk", append(slices.Clone(base), "appended elsewhere"), base, append(slices.Clone(base), "mine"),
			false, false, append(slices.Clone(base), "appended elsewhere")},
		{"both frontmatters changed", with(base, 2, `permissions_deny: ["Bash(rm:*)"]`), base, with(base, 2, `permissions_deny: [WebFetch]`),
			false, false, with(base, 2, `permissions_deny: ["Bash(rm:*)"]`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "chat.md")
			if tt.disk != nil {
				if err := os.WriteFile(path, []byte(strings.Join(tt.disk, "\n")+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			res, err := rpc.SaveChat(path, tt.buffer, tt.base)
			if err != nil {
				t.Fatal(err)
			}
			if res.OK != tt.wantOK || res.Merged != tt.wantMerged {
				t.Errorf("SaveChat = %+v, want ok %v merged %v", res, tt.wantOK, tt.wantMerged)
			}
			if !tt.wantOK && !strings.Contains(res.Message, "changed on disk") {
				t.Errorf("message %q, want it to say the chat changed on disk", res.Message)
			}
			data, _ := os.ReadFile(path)
			if got := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n"); !slices.Equal(got, tt.wantDisk) {
				t.Errorf("disk\n got %q\nwant %q", got, tt.wantDisk)
			}
		})
	}
}

// TestSaveChatWhileRulesAreAdded: an editor saving its growing buffer 200
// times while another writer adds 100 rules (as run --write-back does)
// keeps every rule and every line: each save compares and writes under the
// chat's lock, so a rule written in between is merged, never overwritten.
func TestSaveChatWhileRulesAreAdded(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "chat.md")
	buffer := []string{"---", "vibing.nvim: true", "permissions_allow: []", "---", "", "## User", ""}
	if err := os.WriteFile(path, []byte(strings.Join(buffer, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const saves, rules = 200, 100
	added := make(chan error, 1)
	go func() {
		for i := 0; i < rules; i++ {
			time.Sleep(time.Millisecond) // spread the rules over the saves
			rule := fmt.Sprintf("Bash(tool%d:*)", i)
			if err := frontmatter.EditFile(path, func(d *frontmatter.Document) error {
				_, err := d.AddToList(frontmatter.KeyAllow, rule)
				return err
			}); err != nil {
				added <- err
				return
			}
		}
		added <- nil
	}()
	base := slices.Clone(buffer)
	merges := 0
	for i := 0; i < saves; i++ {
		time.Sleep(time.Millisecond)
		buffer = append(buffer, fmt.Sprintf("line %d", i))
		res, err := rpc.SaveChat(path, buffer, base)
		if err != nil || !res.OK {
			t.Fatalf("save %d: %+v, %v", i, res, err)
		}
		if res.Merged {
			merges++
			_, body, _ := splitFM(buffer)
			buffer = append(slices.Clone(res.Frontmatter), body...)
		}
		base = slices.Clone(buffer)
	}
	if err := <-added; err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	doc, err := frontmatter.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := doc.Settings()
	if len(s.Allow) != rules {
		t.Errorf("%d rules on disk, want %d", len(s.Allow), rules)
	}
	if n := strings.Count(string(data), "\nline "); n != saves {
		t.Errorf("%d lines on disk, want %d", n, saves)
	}
	t.Logf("%d of %d saves merged a rule written meanwhile", merges, saves)
	if merges == 0 {
		t.Error("no save met a rule written meanwhile: the test did not interleave")
	}
}

func splitFM(lines []string) (fm, body []string, ok bool) {
	for i := 1; i < len(lines); i++ {
		if lines[i] == "---" {
			return lines[:i+1], lines[i+1:], true
		}
	}
	return nil, lines, false
}

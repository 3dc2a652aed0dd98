package sandbox

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// The claude CLI keeps its global state in ~/.claude.json and saves it by
// writing ~/.claude.json.tmp.* next to it and renaming that over it, under a
// ~/.claude.json.lock folder: with ~ read-only in the sandbox it could save
// nothing. The file also holds what runs code (mcpServers, a project's
// mcpServers and allowedTools), so it cannot simply be writable.
//
// Inside the sandbox the CLI gets CLAUDE_CONFIG_DIR=~/.claude (everything
// else it keeps there stays where it is) and so reads and writes
// ~/.claude/.claude.json, over which a private copy of ~/.claude.json is
// bound: its lock and temporary files land in the writable ~/.claude, the
// rename onto the bound file fails (EBUSY) and the CLI writes the file in
// place (claude 2.1.330, seen under strace). After the CLI ended, only the
// keys below that changed in the copy are carried back into ~/.claude.json;
// any other change (an MCP server, a permission) is dropped and named.

// claudeJSONKeys are the top-level keys carried back: counters, caches,
// migrations, what the person has seen. Keys starting with "cached" or
// "last" count too.
var claudeJSONKeys = map[string]bool{
	"numStartups": true, "firstStartTime": true, "firstStartVersion": true, "userID": true, "machineID": true,
	"tipsHistory": true, "promptQueueUseCount": true, "hasCompletedOnboarding": true, "lastOnboardingVersion": true,
	"seenNotifications": true, "pluginUsage": true, "migrationVersion": true, "opusProMigrationComplete": true,
	"sonnet45MigrationComplete": true, "hasResetAutoModeOptInForDefaultOffer": true, "subscriptionNoticeCount": true,
	"hasAvailableSubscription": true, "memoryUsageCount": true, "theme": true, "changelogLastFetched": true,
	"hasSeenTasksHint": true, "hasUsedBackslashReturn": true, "hasIdeOnboardingBeenShown": true,
	"feedbackSurveyState": true, "isQualifiedForDataSharing": true,
}

// claudeProjectKeys are the keys of the session's own entry in "projects"
// carried back (and those starting with "last": costs, durations, the last
// session). hasTrustDialogAccepted only after an interactive session, where
// the person answered the CLI's dialog before any tool could run.
var claudeProjectKeys = map[string]bool{
	"exampleFiles": true, "exampleFilesGeneratedAt": true, "hasCompletedProjectOnboarding": true,
	"projectOnboardingSeenCount": true, "hasClaudeMdExternalIncludesWarningShown": true,
}

// grantWords are the parts of a key's name that say it runs code or grants
// permissions (mcpServers, allowedTools, hooks, env, apiKeyHelper,
// hasTrustDialogAccepted...): a dropped key named so is named in the exit
// notice; the other dropped keys are the CLI's own bookkeeping.
var grantWords = []string{"mcp", "hook", "allow", "permission", "trust", "env", "helper", "command", "plugin",
	"marketplace", "apikey", "credential", "statusline", "bypass", "sandbox"}

// grantsOrRuns reports whether a dropped key (projects[/p].k for a
// project's) runs code or grants permissions, by its name.
func grantsOrRuns(key string) bool {
	if i := strings.LastIndex(key, "]."); i >= 0 {
		key = key[i+2:]
	}
	k := strings.ToLower(key)
	for _, w := range grantWords {
		if strings.Contains(k, w) {
			return true
		}
	}
	return strings.HasPrefix(key, "(") // the whole file
}

func topKeyCarried(k string) bool {
	return claudeJSONKeys[k] || strings.HasPrefix(k, "cached") || strings.HasPrefix(k, "last")
}

func projectKeyCarried(k string, interactive bool) bool {
	return claudeProjectKeys[k] || strings.HasPrefix(k, "last") || interactive && k == "hasTrustDialogAccepted"
}

// claudeState is the private copy of ~/.claude.json for one sandbox.
type claudeState struct {
	real  string // ~/.claude.json
	copy  string // the private copy, bound at mount
	mount string // ~/.claude/.claude.json
	start []byte // the copy as it was made
	cwd   string // the session's folder (its "projects" entry)
	inter bool   // interactive session
}

// claudeConfigDir is the folder the CLI keeps its state in inside the
// sandbox, and the file it reads as ~/.claude.json there.
func claudeConfigDir(home string) (dir, mount string) {
	dir = filepath.Join(home, ".claude")
	return dir, filepath.Join(dir, ".claude.json")
}

// prepareClaudeState copies ~/.claude.json into dir (Prepare makes the
// mount point); nil (and no error) when the CLI keeps its state elsewhere
// (CLAUDE_CONFIG_DIR set by the person) or there is no home.
func (v *View) prepareClaudeState(dir string, interactive bool) (*claudeState, error) {
	if v.Home == "" || os.Getenv("CLAUDE_CONFIG_DIR") != "" {
		return nil, nil
	}
	cdir, mount := claudeConfigDir(v.Home)
	if fi, err := os.Stat(cdir); err != nil || !fi.IsDir() {
		return nil, nil
	}
	s := &claudeState{real: filepath.Join(v.Home, ".claude.json"), copy: filepath.Join(dir, "claude.json"), mount: mount,
		cwd: v.Cwd, inter: interactive}
	data, err := os.ReadFile(s.real)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		data = []byte("{}\n")
	case err != nil:
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	if err := os.WriteFile(s.copy, data, 0o600); err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	s.start = data
	return s, nil
}

// sync carries the changed keys of the copy back into ~/.claude.json and
// returns the keys it dropped. An error means the carried keys were not
// saved.
func (s *claudeState) sync() (dropped []string, err error) {
	end, err := os.ReadFile(s.copy)
	if err != nil || bytes.Equal(end, s.start) {
		return nil, nil
	}
	before, after := jsonObject(s.start), jsonObject(end)
	if after == nil {
		return []string{"(the whole file: it is not a JSON object any more)"}, nil
	}
	type change struct {
		key, project string
		val          json.RawMessage // nil: removed
	}
	var changes []change
	for _, k := range unionKeys(before, after) {
		if k == "projects" {
			continue
		}
		if sameJSON(before[k], after[k]) {
			continue
		}
		if !topKeyCarried(k) {
			dropped = append(dropped, k)
			continue
		}
		changes = append(changes, change{key: k, val: after[k]})
	}
	bp, ap := jsonObject(before["projects"]), jsonObject(after["projects"])
	for _, p := range unionKeys(bp, ap) {
		if sameJSON(bp[p], ap[p]) {
			continue
		}
		pb, pa := jsonObject(bp[p]), jsonObject(ap[p])
		for _, k := range unionKeys(pb, pa) {
			if sameJSON(pb[k], pa[k]) {
				continue
			}
			if realPath(p) != s.cwd || !projectKeyCarried(k, s.inter) {
				dropped = append(dropped, "projects["+p+"]."+k)
				continue
			}
			changes = append(changes, change{key: k, project: p, val: pa[k]})
		}
	}
	if len(changes) == 0 {
		return dropped, nil
	}
	return dropped, s.update(func(cur map[string]json.RawMessage) {
		for _, c := range changes {
			if c.project == "" {
				setKey(cur, c.key, c.val)
				continue
			}
			projects := jsonObject(cur["projects"])
			if projects == nil {
				projects = map[string]json.RawMessage{}
			}
			entry := jsonObject(projects[c.project])
			if entry == nil {
				entry = map[string]json.RawMessage{}
			}
			setKey(entry, c.key, c.val)
			projects[c.project] = mustJSON(entry)
			cur["projects"] = mustJSON(projects)
		}
	})
}

// update rewrites ~/.claude.json as the CLI does: under its lock folder, a
// temporary file renamed over it, the mode kept.
func (s *claudeState) update(edit func(map[string]json.RawMessage)) error {
	lock := s.real + ".lock"
	deadline := time.Now().Add(3 * time.Second)
	for {
		err := os.Mkdir(lock, 0o700)
		if err == nil {
			break
		}
		if fi, serr := os.Stat(lock); serr == nil && time.Since(fi.ModTime()) > 10*time.Second {
			_ = os.Remove(lock) // a lock its owner left behind (the CLI calls it stale after 10 s)
			continue
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s is locked by another claude (%s)", s.real, lock)
		}
		time.Sleep(20 * time.Millisecond)
	}
	defer os.Remove(lock)
	mode := fs.FileMode(0o600)
	cur := map[string]json.RawMessage{}
	data, err := os.ReadFile(s.real)
	switch {
	case err == nil:
		if cur = jsonObject(data); cur == nil {
			return fmt.Errorf("%s is not a JSON object: left as it is", s.real)
		}
		if fi, err := os.Stat(s.real); err == nil {
			mode = fi.Mode().Perm()
		}
	case !errors.Is(err, fs.ErrNotExist):
		return err
	}
	edit(cur)
	out, err := json.MarshalIndent(cur, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(s.real), ".claude.json.vibing-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(out, '\n')); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), s.real)
}

func jsonObject(raw []byte) map[string]json.RawMessage {
	if len(raw) == 0 {
		return nil
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	return m
}

func unionKeys(a, b map[string]json.RawMessage) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range []map[string]json.RawMessage{a, b} {
		for k := range m {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	sort.Strings(out)
	return out
}

func sameJSON(a, b json.RawMessage) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	var ca, cb bytes.Buffer
	if json.Compact(&ca, a) != nil || json.Compact(&cb, b) != nil {
		return bytes.Equal(a, b)
	}
	return bytes.Equal(ca.Bytes(), cb.Bytes())
}

func setKey(m map[string]json.RawMessage, k string, v json.RawMessage) {
	if v == nil {
		delete(m, k)
		return
	}
	m[k] = v
}

func mustJSON(m map[string]json.RawMessage) json.RawMessage {
	out, _ := json.Marshal(m)
	return out
}

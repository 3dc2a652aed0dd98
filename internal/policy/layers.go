package policy

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"vibing/internal/config"
	"vibing/internal/safefile"
	"vibing/internal/selfexe"
	"vibing/internal/session"
)

// Places says where the layers' files are. Zero fields take the real places;
// tests point them elsewhere (the managed layer's own test runs against the
// real /etc paths inside a private mount namespace).
type Places struct {
	Managed       string // /etc/vibing
	ClaudeManaged string // /etc/claude-code
	Home          string // the user's home ($HOME)
	UserConfig    string // $XDG_CONFIG_HOME/vibing or ~/.config/vibing
	TrustStore    string // <state folder>/trust.json
	Binary        string // the vibing-agent binary (guarded); "" = the running one
}

func (p Places) withDefaults() Places {
	if p.Managed == "" {
		p.Managed = "/etc/vibing"
	}
	if p.ClaudeManaged == "" {
		p.ClaudeManaged = "/etc/claude-code"
	}
	if p.Home == "" {
		p.Home, _ = os.UserHomeDir()
	}
	if p.UserConfig == "" {
		if d := os.Getenv("XDG_CONFIG_HOME"); d != "" {
			p.UserConfig = filepath.Join(d, "vibing")
		} else {
			p.UserConfig = filepath.Join(p.Home, ".config", "vibing")
		}
	}
	if p.TrustStore == "" {
		p.TrustStore = filepath.Join(config.StateDir(), "trust.json")
	}
	if p.Binary == "" {
		p.Binary, _ = os.Executable()
	}
	return p
}

// File is one policy file as the loader saw it (for explain, checkhealth
// and the editor's views).
type File struct {
	Layer    string   `json:"layer"`
	Name     string   `json:"name"` // as decision sources name it
	Path     string   `json:"path"` // absolute ("" for setup())
	Kind     string   `json:"kind"` // vibing | claude | setup
	Trust    string   `json:"trust,omitempty"`
	Waiting  []string `json:"waiting,omitempty"` // allow rules and mode that wait for trust
	Warnings []string `json:"warnings,omitempty"`
	Allow    []string `json:"allow,omitempty"`
	Ask      []string `json:"ask,omitempty"`
	Deny     []string `json:"deny,omitempty"`
	Mode     string   `json:"mode,omitempty"`
}

// Trust states of a project file.
const (
	Trusted   = "trusted"
	Untrusted = "untrusted" // never trusted
	Changed   = "changed"   // trusted once, changed since
)

// layers is what the loader gathered from every file.
type layers struct {
	files    []File
	policy   []session.PolicyFile
	switches session.Switches
	guard    []string
	err      error // a file that cannot be read: the engine refuses every call
}

// candidate is one file the loader looks at.
type candidate struct {
	layer, name, path, kind, root string
}

// candidates lists the policy files of every layer, highest first. A
// drop-in folder (policy.d, managed-settings.d) that exists but cannot be
// listed is an error: its deny rules must not vanish without a word.
func candidates(pl Places, root string, cfg *config.Config) ([]candidate, error) {
	var out []candidate
	add := func(layer, name, path, kind, root string) {
		out = append(out, candidate{layer, name, path, kind, root})
	}
	add(session.LayerManaged, filepath.Join(pl.Managed, "policy.yaml"), filepath.Join(pl.Managed, "policy.yaml"), "vibing", "/")
	dropIns, err := folderFiles(filepath.Join(pl.Managed, "policy.d"), "*.yaml", "policy folder")
	if err != nil {
		return nil, err
	}
	for _, p := range dropIns {
		add(session.LayerManaged, p, p, "vibing", "/")
	}
	claude := cfg.ReadClaudeSettings()
	if claude {
		p := filepath.Join(pl.ClaudeManaged, "managed-settings.json")
		add(session.LayerManaged, p, p, "claude", "/")
		dropIns, err := folderFiles(filepath.Join(pl.ClaudeManaged, "managed-settings.d"), "*.json", "settings folder")
		if err != nil {
			return nil, err
		}
		for _, p := range dropIns {
			add(session.LayerManaged, p, p, "claude", "/")
		}
	}
	add(session.LayerUser, "~/.config/vibing/policy.yaml", filepath.Join(pl.UserConfig, "policy.yaml"), "vibing", pl.Home)
	if claude {
		add(session.LayerUser, "~/.claude/settings.json", filepath.Join(pl.Home, ".claude", "settings.json"), "claude", filepath.Join(pl.Home, ".claude"))
	}
	add(session.LayerProject, ".vibing/policy.yaml", filepath.Join(root, ".vibing", "policy.yaml"), "vibing", root)
	if claude {
		add(session.LayerProject, ".claude/settings.json", filepath.Join(root, ".claude", "settings.json"), "claude", root)
		add(session.LayerProject, ".claude/settings.local.json", filepath.Join(root, ".claude", "settings.local.json"), "claude", root)
	}
	return out, nil
}

// folderFiles lists the files of dir whose names match pattern, sorted. A
// folder that does not exist has none.
func folderFiles(dir, pattern, what string) ([]string, error) {
	names, err := safefile.ReadDirNames(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, unreadable(what, dir, err)
	}
	var out []string
	for _, n := range names {
		if ok, _ := filepath.Match(pattern, n); ok {
			out = append(out, filepath.Join(dir, n))
		}
	}
	return out, nil
}

// readCandidate reads one policy file; found is false when it does not
// exist. It never blocks and reads at most safefile.PolicyLimit: a FIFO, a
// device or a huge file is an UnreadableError.
func readCandidate(c candidate) (data []byte, found bool, err error) {
	data, err = safefile.ReadFile(c.path, safefile.PolicyLimit)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, false, nil
	case err != nil:
		what := "policy file"
		if c.kind == "claude" {
			what = "settings file"
		}
		return nil, false, unreadable(what, c.path, err)
	}
	return data, true, nil
}

// guardPaths are the places no tool may modify, whether a file is there or
// not: a policy file the agent could create is as dangerous as one it edits.
func guardPaths(pl Places, root string) []string {
	paths := []string{
		pl.Managed, pl.ClaudeManaged, pl.UserConfig,
		filepath.Join(pl.Home, ".claude", "settings.json"),
		filepath.Join(pl.Home, ".claude.json"),
		filepath.Join(root, ".claude", "settings.json"),
		filepath.Join(root, ".claude", "settings.local.json"),
		pl.TrustStore,
	}
	// vibing-agent and the other build of the pair beside it (selfexe)
	return append(paths, selfexe.Pair(pl.Binary)...)
}

// loadLayers reads every layer's files. A project file's allow rules and
// mode count only when trust holds its exact content.
func loadLayers(pl Places, root string, cfg *config.Config, configFile string, trust *Trust) layers {
	var ls layers
	ls.guard = guardPaths(pl, root)
	if configFile != "" && (len(cfg.Permissions.Deny) > 0 || len(cfg.Permissions.Ask) > 0) {
		// setup()'s permissions: their deny and ask lists hold in every
		// chat; the allow list and mode stay a template for new chats.
		f := session.PolicyFile{Layer: session.LayerUser, Name: "setup()", Deny: cfg.Permissions.Deny, Ask: cfg.Permissions.Ask}
		ls.policy = append(ls.policy, f)
		ls.files = append(ls.files, File{Layer: f.Layer, Name: f.Name, Kind: "setup", Deny: f.Deny, Ask: f.Ask})
	}
	var claudeModes []*session.PolicyFile // Claude's defaultMode: managed > local > project > user
	cands, err := candidates(pl, root, cfg)
	if err != nil {
		ls.err = err
		return ls
	}
	for _, c := range cands {
		data, found, err := readCandidate(c)
		if err != nil {
			ls.err = err
			return ls
		}
		if !found {
			continue
		}
		var rules session.PolicyFile
		var sw session.Switches
		var warnings []string
		switch c.kind {
		case "vibing":
			f, err := parseVibingFile(data, c.path, c.layer, c.name)
			if err != nil {
				ls.err = err
				return ls
			}
			rules, sw = f.rules, f.switches
		default:
			f, err := parseClaudeFile(data, c.path, c.layer, c.name, c.root, pl.Home)
			if err != nil {
				ls.err = err
				return ls
			}
			rules, sw, warnings = f.rules, f.switches, f.warnings
		}
		file := File{Layer: c.layer, Name: c.name, Path: c.path, Kind: c.kind, Warnings: warnings,
			Allow: rules.Allow, Ask: rules.Ask, Deny: rules.Deny, Mode: rules.Mode}
		if c.layer == session.LayerProject {
			file.Trust = trustState(trust, c.path, data) // the content the rules came from
			if file.Trust != Trusted {
				file.Waiting = append(file.Waiting, rules.Allow...)
				if rules.Mode != "" {
					file.Waiting = append(file.Waiting, "mode: "+rules.Mode)
				}
				rules.Untrusted = rules.Allow // (they only explain an ask)
				rules.Allow, rules.Mode = nil, ""
			}
		}
		mergeSwitches(&ls.switches, sw)
		ls.files = append(ls.files, file)
		ls.policy = append(ls.policy, rules)
		if rules.Default && rules.Mode != "" {
			claudeModes = append(claudeModes, &ls.policy[len(ls.policy)-1])
		}
	}
	// keep one Claude defaultMode, Claude's way: managed, then local, then
	// project, then user
	if len(claudeModes) > 1 {
		keep := claudeModes[0]
		if keep.Layer != session.LayerManaged {
			keep = claudeModes[len(claudeModes)-1] // local and project come after user
		}
		for _, f := range claudeModes {
			if f != keep {
				f.Mode, f.Default = "", false
			}
		}
	}
	return ls
}

func trustState(t *Trust, path string, data []byte) string {
	if t.Trusted(path, sum(data)) {
		return Trusted
	}
	if _, ok := t.Files[path]; ok {
		return Changed
	}
	return Untrusted
}

func mergeSwitches(dst *session.Switches, s session.Switches) {
	dst.DisableBypass = dst.DisableBypass || s.DisableBypass
	dst.DisableAlways = dst.DisableAlways || s.DisableAlways
	dst.DisableSessionGrants = dst.DisableSessionGrants || s.DisableSessionGrants
	dst.ManagedRulesOnly = dst.ManagedRulesOnly || s.ManagedRulesOnly
}

// FilesText lists the policy files found, with their trust and what waits.
func FilesText(files []File) string {
	if len(files) == 0 {
		return "\nPolicy files: none besides the chat (managed /etc/vibing, ~/.config/vibing/policy.yaml, ~/.claude/settings.json, .vibing/policy.yaml, .claude/settings*.json were looked for).\n"
	}
	var b strings.Builder
	b.WriteString("\nPolicy files:\n")
	for _, f := range files {
		fmt.Fprintf(&b, "  %-8s %s", f.Layer, f.Name)
		if f.Trust != "" {
			fmt.Fprintf(&b, " (%s)", f.Trust)
		}
		b.WriteString("\n")
		if len(f.Waiting) > 0 {
			fmt.Fprintf(&b, "           waiting for trust (vibing-agent trust %s): %s\n", f.Name, strings.Join(f.Waiting, ", "))
		}
		for _, w := range f.Warnings {
			fmt.Fprintf(&b, "           WARNING: %s\n", w)
		}
	}
	return b.String()
}

// Package policy is the one loader of rules (SPEC §11): it builds a chat's
// decision engine from every policy layer - managed (/etc/vibing, Claude's
// managed settings), user (~/.config/vibing/policy.yaml, setup(),
// ~/.claude/settings.json), project (.vibing/policy.yaml,
// .claude/settings*.json; allow rules only once trusted), chat and session -
// and says which project a chat belongs to, where its working directory is
// and what the engine guards. Every caller that decides or explains calls
// (check, explain, run, hook, test and the editor's RPC host) goes through
// Open, so they cannot disagree.
package policy

import (
	"fmt"
	"os"
	"path/filepath"

	"vibing/internal/config"
	"vibing/internal/frontmatter"
	"vibing/internal/session"
)

// Request says which chat to load and from where.
type Request struct {
	Config     *config.Config // nil: the documented defaults
	ConfigFile string         // the user's config file, guarded ("" when there is none)

	ChatFile string                // the chat file; relative to Dir
	Settings *frontmatter.Settings // the chat's settings (an editor buffer); nil: read ChatFile

	// Dir is where the caller stands: the editor's current directory, or the
	// process's (default). It is the project root of a chat that does not
	// live in a project's .vibing/ folder, and the working directory of a
	// chat without working_dir.
	Dir string
	// Cwd is a working directory given explicitly (--cwd): it overrides the
	// chat's working_dir. Relative to Dir.
	Cwd string

	// Options carries the rest of session.Options (Resumed, SessionAllow,
	// SessionDeny, Home); its Cwd, ChatFile, ProjectRoot, ConfigFile,
	// Policy, Switches and Guard are set by Open.
	Options session.Options

	// Places says where the layers' files are (zero: the real places).
	Places Places
	// NoChat loads the layers without a chat (the Claude Code hook, a
	// policy test): the chat layer is empty.
	NoChat bool
}

// Chat is a loaded chat.
type Chat struct {
	Path     string // the chat file, absolute ("" when the request named none)
	Settings frontmatter.Settings
	Root     string // the project root: the folder whose .vibing/ is guarded
	Cwd      string // the working directory, absolute
	Engine   *session.Engine
	// LoadErr holds settings the engine cannot use (invalid rules, an
	// unknown preset or mode, a policy file that cannot be read): the
	// engine then fails closed on them.
	LoadErr error
	// Files are the policy files of the managed, user and project layers
	// that exist, highest first.
	Files []File
	// Places are where the layers' files were looked for.
	Places Places
}

// Open loads a chat. A chat file that cannot be read or parsed, or a
// working directory that is not a folder, is an error; unusable settings
// come back in Chat.LoadErr with an engine that fails closed.
func Open(req Request) (*Chat, error) {
	dir := req.Dir
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("cannot find the current directory: %w", err)
		}
		dir = wd
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	ch := &Chat{}
	if req.ChatFile != "" {
		ch.Path = absFrom(dir, req.ChatFile)
	}
	switch {
	case req.Settings != nil:
		ch.Settings = *req.Settings
	case req.NoChat:
		ch.Settings = frontmatter.Settings{Allow: []string{}, Ask: []string{}, Deny: []string{}}
	case ch.Path == "":
		return nil, fmt.Errorf("no chat file and no settings to load")
	default:
		doc, err := frontmatter.ReadFile(ch.Path)
		if err != nil {
			return nil, err // it names the file
		}
		if ch.Settings, err = doc.Settings(); err != nil {
			return nil, fmt.Errorf("chat %s: %w", req.ChatFile, err)
		}
	}
	ch.Root = ProjectRoot(ch.Path, dir)
	if ch.Cwd, err = WorkDir(dir, ch.Root, req.Cwd, ch.Settings.WorkingDir); err != nil {
		return nil, err
	}
	opts := req.Options
	opts.Cwd, opts.ChatFile, opts.ProjectRoot = ch.Cwd, ch.Path, ch.Root
	if req.ConfigFile != "" {
		opts.ConfigFile = absFrom(dir, req.ConfigFile)
	}
	cfg := req.Config
	if cfg == nil {
		cfg = config.DefaultConfig()
	}
	ch.Places = req.Places.withDefaults()
	if opts.Home == "" {
		opts.Home = ch.Places.Home
	}
	trust, terr := LoadTrust(ch.Places.TrustStore)
	ls := loadLayers(ch.Places, ch.Root, cfg, opts.ConfigFile, trust)
	ch.Files = ls.files
	opts.Policy, opts.Switches, opts.Guard = ls.policy, ls.switches, ls.guard
	if ls.err != nil {
		opts.Broken = fmt.Errorf("%v; every tool call is denied until it is fixed", ls.err)
	}
	ch.Engine, ch.LoadErr = session.New(cfg, ch.Settings, opts)
	if terr != nil && ch.LoadErr == nil {
		// nothing is trusted: project allow rules wait, which only asks more
		ch.LoadErr = fmt.Errorf("%v; no project policy file counts as trusted", terr)
	}
	return ch, nil
}

// ProjectRoot is the project a chat belongs to: the folder holding the
// nearest .vibing/ folder above the chat file (a chat in
// <root>/.vibing/chat/), else dir, where the caller stands.
func ProjectRoot(chatFile, dir string) string {
	if chatFile != "" {
		for d := filepath.Dir(chatFile); ; d = filepath.Dir(d) {
			if filepath.Base(d) == ".vibing" {
				return filepath.Dir(d)
			}
			if d == filepath.Dir(d) {
				break
			}
		}
	}
	return dir
}

// WorkDir is a chat's working directory: explicit (relative to dir), else the
// chat's working_dir (relative to the project root), else dir. It must be an
// existing folder.
func WorkDir(dir, root, explicit, workingDir string) (string, error) {
	var d string
	switch {
	case explicit != "":
		d = absFrom(dir, explicit)
	case workingDir != "":
		d = absFrom(root, workingDir)
	default:
		d = dir
	}
	if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("working directory %s is not a folder", d)
	}
	return d, nil
}

func absFrom(base, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(base, p)
}

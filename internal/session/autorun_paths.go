package session

import (
	"path/filepath"
	"sort"
	"strings"

	"vibing/internal/command"
)

// The families of files that run code or pull in files by themselves, in
// words for the reason sentence.
const (
	whatClaude     = "runs code by itself (Claude Code's settings, hooks, commands, skills and agents)"
	whatClaudeJSON = "runs code by itself (Claude Code's user configuration, with its MCP servers)"
	whatMCP        = "runs code by itself (.mcp.json: MCP servers, which Claude Code starts)"
	whatMemory     = "pulls in files by itself (CLAUDE.md: Claude Code loads it into every session, with the files it @-imports)"
	whatHooks      = "runs code by itself (git hooks)"
	whatGitConfig  = "runs code by itself (git configuration: hooksPath, fsmonitor, aliases, pagers)"
	whatGitDir     = "runs code by itself (a repository's .git, which says where its hooks and configuration live)"
	whatShell      = "runs code by itself (shell start-up files)"
	whatSSH        = "runs code or lets others in by itself (SSH configuration and authorized keys)"
	whatEditor     = "runs code by itself (the editor's start-up files and plugins)"
	whatSession    = "runs code by itself (user services and session start-up)"
	whatPathDir    = "runs code by itself (a folder on the PATH: a program there runs in place of another)"
	whatTool       = "runs code by itself (a tool's configuration that names programs it runs)"
)

// homeAutorun are the files below the home directory that run code by
// themselves (a trailing "/" names a folder and everything in it).
var homeAutorun = map[string]string{
	".bashrc": whatShell, ".bash_profile": whatShell, ".bash_login": whatShell, ".bash_logout": whatShell,
	".profile": whatShell, ".zshrc": whatShell, ".zshenv": whatShell, ".zprofile": whatShell,
	".zlogin": whatShell, ".zlogout": whatShell, ".config/fish/": whatShell,
	".ssh/authorized_keys": whatSSH, ".ssh/authorized_keys2": whatSSH, ".ssh/rc": whatSSH, ".ssh/config": whatSSH,
	".gitconfig": whatGitConfig, ".config/git/": whatGitConfig,
	".claude.json":  whatClaudeJSON,
	".bash_aliases": whatShell, ".inputrc": whatShell, ".tmux.conf": whatShell, ".config/tmux/": whatShell,
	".vimrc": whatEditor, ".gvimrc": whatEditor, ".exrc": whatEditor, ".vim/": whatEditor,
	".config/nvim/": whatEditor, ".local/share/nvim/": whatEditor, ".local/state/nvim/": whatEditor,
	".emacs": whatEditor, ".emacs.el": whatEditor, ".emacs.d/": whatEditor, ".config/emacs/": whatEditor,
	".config/Code/User/": whatEditor, ".vscode/": whatEditor,
	".config/systemd/user/": whatSession, ".config/autostart/": whatSession, ".config/environment.d/": whatSession,
	".pam_environment": whatSession, ".xprofile": whatSession, ".xinitrc": whatSession, ".xsession": whatSession,
	".xsessionrc": whatSession, ".config/vibing/": whatTool,
	".local/bin/": whatPathDir, "bin/": whatPathDir,
	".npmrc": whatTool, ".yarnrc": whatTool, ".yarnrc.yml": whatTool, ".config/direnv/": whatShell,
}

// systemAutorun are such files outside the home directory.
var systemAutorun = map[string]string{
	"/etc/profile": whatShell, "/etc/profile.d/": whatShell, "/etc/bash.bashrc": whatShell,
	"/etc/zsh/": whatShell, "/etc/gitconfig": whatGitConfig,
}

// classify reports whether the absolute path p is (or lies in) a file that
// runs code or pulls in files by itself. Project files are recognised by
// name at any depth (a nested repository's .git/hooks, a subfolder's
// CLAUDE.md), letter case aside (case-insensitive file systems). A name
// matched here or in gitHit is also listed in projectNames, which the
// shortcut of namedPaths (cwdNames) reads.
func (e *Engine) classify(p string) (autorunHit, bool) {
	if p == "" {
		return autorunHit{}, false
	}
	if home := strings.TrimSuffix(e.env.Home, "/"); e.env.Home != "" && len(p) > len(home) && p[len(home)] == '/' && strings.HasPrefix(p, home) {
		rel := p[len(home)+1:]
		for _, n := range homeAutorunList {
			if rel == strings.TrimSuffix(n.name, "/") || strings.HasSuffix(n.name, "/") && strings.HasPrefix(rel, n.name) {
				return autorunHit{path: p, what: n.what, names: [][]string{nameWords(n.name)}}, true
			}
		}
	}
	for _, n := range systemAutorunList {
		if p == strings.TrimSuffix(n.name, "/") || strings.HasSuffix(n.name, "/") && strings.HasPrefix(p, n.name) {
			return autorunHit{path: p, what: n.what, names: [][]string{nameWords(n.name)}}, true
		}
	}
	for _, h := range e.hooksDirs() {
		if p == h || strings.HasPrefix(p, h+"/") {
			return autorunHit{path: p, what: whatHooks, names: [][]string{nameWords(strings.TrimPrefix(h, e.env.Cwd+"/"))}}, true
		}
	}
	// the names of p, one by one (no slice of them is made: this runs for
	// every path a call writes)
	rest := strings.TrimPrefix(p, "/")
	last := rest[strings.LastIndexByte(rest, '/')+1:]
	for rest != "" {
		s, tail := rest, ""
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			s, tail = rest[:i], rest[i+1:]
		}
		switch {
		case strings.EqualFold(s, ".claude"):
			return autorunHit{path: p, what: whatClaude, names: [][]string{{".claude"}}}, true
		case strings.EqualFold(s, ".git"):
			var after []string
			if tail != "" {
				after = strings.Split(tail, "/")
			}
			if h, ok := gitHit(p, after); ok {
				return h, true
			}
		}
		if tail == "" {
			break
		}
		rest = tail
	}
	switch {
	case strings.EqualFold(last, "CLAUDE.md"), strings.EqualFold(last, "CLAUDE.local.md"):
		return autorunHit{path: p, what: whatMemory, names: [][]string{{last}}}, true
	case strings.EqualFold(last, ".mcp.json"):
		return autorunHit{path: p, what: whatMCP, names: [][]string{{".mcp.json"}}}, true
	}
	return autorunHit{}, false
}

// autorunName is one entry of homeAutorun or systemAutorun.
type autorunName struct{ name, what string }

// homeAutorunList and systemAutorunList are the two maps as lists, in the
// order of their names, for classify (which runs for every written path).
var homeAutorunList, systemAutorunList = autorunList(homeAutorun), autorunList(systemAutorun)

func autorunList(m map[string]string) []autorunName {
	out := make([]autorunName, 0, len(m))
	for name, what := range m {
		out = append(out, autorunName{name, what})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// gitHit classifies what lies below a .git folder (rest): hooks and
// configuration, also of submodules and worktrees (.git/modules/x/hooks,
// .git/worktrees/x/config.worktree), and the .git itself (a .git file says
// where the repository is: "gitdir: /elsewhere").
func gitHit(p string, rest []string) (autorunHit, bool) {
	if len(rest) == 0 {
		return autorunHit{path: p, what: whatGitDir, names: [][]string{{".git"}}}, true
	}
	for _, s := range rest {
		if strings.EqualFold(s, "hooks") {
			return autorunHit{path: p, what: whatHooks, names: [][]string{{".git", "hooks"}}}, true
		}
	}
	last := rest[len(rest)-1]
	if strings.EqualFold(last, "config") || strings.EqualFold(last, "config.worktree") || strings.EqualFold(last, "commondir") || strings.EqualFold(last, "gitdir") {
		return autorunHit{path: p, what: whatGitConfig, names: [][]string{{".git", last}, {"git", "config"}}}, true
	}
	return autorunHit{}, false
}

// nameWords splits a file name from the tables above into the words an
// allow rule must hold.
func nameWords(name string) []string {
	return strings.FieldsFunc(name, func(r rune) bool { return r == '/' })
}

// autorunNames are the names a relative path is looked at for when the
// folder it is in is only known at run time: the names of such files and
// folders, and of what lies in them.
var autorunNames = func() map[string]bool {
	m := map[string]bool{}
	for _, n := range []string{".claude", "claude.md", "claude.local.md", ".mcp.json", ".git", "hooks", "config",
		"config.worktree", "settings.json", "settings.local.json", "commands", "skills", "agents", ".claude.json",
		"authorized_keys", "authorized_keys2", "rc", ".gitconfig", "applypatch-msg", "pre-applypatch",
		"post-applypatch", "pre-commit", "pre-merge-commit", "prepare-commit-msg", "commit-msg", "post-commit",
		"pre-rebase", "post-checkout", "post-merge", "pre-push", "pre-receive", "update", "proc-receive",
		"post-receive", "post-update", "reference-transaction", "push-to-checkout", "pre-auto-gc",
		"post-rewrite", "sendemail-validate", "fsmonitor-watchman", "post-index-change"} {
		m[n] = true
	}
	for n := range homeAutorun {
		for _, w := range nameWords(n) {
			m[strings.ToLower(w)] = true
		}
	}
	return m
}()

// namesAutorun reports whether a relative path has a part named like a
// file or folder that runs code by itself.
func namesAutorun(raw string) bool {
	for _, part := range strings.Split(filepath.Clean(raw), "/") {
		if autorunNames[strings.ToLower(part)] {
			return true
		}
	}
	return false
}

// autorunMentions are the names by which a script text (python -c, awk,
// an unparsable line) may reach such a file.
var autorunMentions = []struct{ text, what string }{
	{".git/hooks", whatHooks}, {".git/config", whatGitConfig}, {"hooksPath", whatGitConfig}, {".claude/", whatClaude},
	{".claude\"", whatClaude}, {".claude'", whatClaude}, {".claude.json", whatClaudeJSON}, {".mcp.json", whatMCP},
	{"CLAUDE.md", whatMemory}, {"CLAUDE.local.md", whatMemory}, {".bashrc", whatShell}, {".bash_profile", whatShell},
	{".profile", whatShell}, {".zshrc", whatShell}, {".zshenv", whatShell}, {".zprofile", whatShell},
	{"authorized_keys", whatSSH}, {".ssh/config", whatSSH}, {".gitconfig", whatGitConfig},
}

// mentioned reports a file that runs code by itself named inside a text.
func (e *Engine) mentioned(text string) (autorunHit, bool) {
	for _, m := range autorunMentions {
		if strings.Contains(text, m.text) {
			return autorunHit{path: strings.Trim(m.text, "\"'/"), what: m.what, maybe: true,
				names: [][]string{nameWords(strings.Trim(m.text, "\"'"))}}, true
		}
	}
	return autorunHit{}, false
}

// runsScriptText reports the programs that take a program text in their
// words (python3 -c, awk 'BEGIN{print > "f"}', sed 'w f'): a text naming
// such a file counts. (A switch: it is asked of every command.)
func runsScriptText(name string) bool {
	switch name {
	case "python", "python2", "python3", "node", "nodejs", "deno", "bun",
		"perl", "ruby", "php", "lua", "awk", "gawk", "mawk", "nawk",
		"sed", "osascript", "pwsh", "Rscript", "tclsh":
		return true
	}
	return false
}

// gitChanges reports the git subcommands that write the files they name.
func gitChanges(sub string) bool {
	switch sub {
	case "checkout", "restore", "mv", "rm", "reset", "clean", "apply", "am":
		return true
	}
	return false
}

// autorunByCommand finds such files changed by what a command does rather
// than by a redirection or a file-changing command's arguments: `git
// config` setting a key, a git subcommand that rewrites the files it names,
// a program that is not known to only read and names one, and a script text
// that names one.
func (e *Engine) autorunByCommand(v *command.Call) []autorunHit {
	var out []autorunHit
	for i := range v.Commands {
		args := v.Commands[i].Args
		if len(args) < 2 {
			continue
		}
		name := filepath.Base(args[0])
		if name == "git" {
			sub, rest := gitSubcommand(args[1:])
			switch {
			case sub == "config" && gitConfigWrites(rest):
				out = append(out, autorunHit{path: e.gitConfigFile(rest), what: whatGitConfig,
					names: [][]string{{"git", "config"}, {".git", "config"}, {".gitconfig"}}})
			case gitChanges(sub):
				out = append(out, e.namedPaths(rest)...)
			}
			continue
		}
		if v.Commands[i].ReadOnly() {
			continue
		}
		out = append(out, e.namedPaths(args[1:])...)
		if runsScriptText(name) || strings.HasPrefix(name, "python") {
			for _, a := range args[1:] {
				if h, ok := e.mentioned(a); ok {
					out = append(out, h)
				}
			}
		}
	}
	return out
}

// namedPaths classifies the words of a command that name paths (after an
// "x=" prefix too: dd of=..., --output=...).
func (e *Engine) namedPaths(words []string) []autorunHit {
	var out []autorunHit
	for _, w := range words {
		cands := []string{w}
		if i := strings.IndexByte(w, '='); i >= 0 {
			cands = append(cands, w[i+1:])
		}
		for _, cand := range cands {
			if cand == "" || strings.HasPrefix(cand, "-") || command.BytesSpace.In(cand) {
				continue
			}
			// by its name first (no look-up); through symlinks only for a
			// word that looks like a path
			var abs string // cleaned: Join cleans what it joins
			switch {
			case cand == "~" || strings.HasPrefix(cand, "~/"):
				abs = filepath.Join(e.env.Home, cand[1:])
			case !filepath.IsAbs(cand):
				if e.ref || !e.cwdNameTest().passes(cand) {
					abs = filepath.Join(e.env.Cwd, cand)
				} // else no such file is named so here: abs stays "", which classify passes over
			default:
				abs = filepath.Clean(cand)
			}
			if h, ok := e.classify(abs); ok {
				out = append(out, h)
				continue
			}
			if command.BytesPathLike.In(cand) {
				if h, ok := e.classify(command.ResolvePath(cand, e.env).Real); ok {
					out = append(out, h)
				}
			}
		}
	}
	return out
}

// gitSubcommand skips git's own options (-C dir, -c k=v, --git-dir=...).
func gitSubcommand(args []string) (string, []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-C" || a == "-c" || a == "--git-dir" || a == "--work-tree" || a == "--namespace" || a == "--config-env":
			i++
		case strings.HasPrefix(a, "-"):
		default:
			return a, args[i+1:]
		}
	}
	return "", nil
}

// gitConfigWrites reports whether `git config ARGS` changes a configuration
// file: anything but reading one key or listing them.
func gitConfigWrites(args []string) bool {
	var pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--get" || a == "--get-all" || a == "--get-regexp" || a == "--get-urlmatch" || a == "--get-color" ||
			a == "--get-colorbool" || a == "-l" || a == "--list" || a == "--show-origin" && len(args) == 1:
			return false
		case a == "-f" || a == "--file" || a == "--blob" || a == "--type" || a == "--default" || a == "--comment":
			i++
		case strings.HasPrefix(a, "-"):
			if a == "-e" || a == "--edit" || strings.HasPrefix(a, "--unset") || strings.HasPrefix(a, "--replace") ||
				a == "--add" || strings.HasSuffix(a, "-section") {
				return true
			}
		default:
			pos = append(pos, a)
		}
	}
	if len(pos) > 0 && (pos[0] == "get" || pos[0] == "list") {
		return false
	}
	return len(pos) != 1 // "git config key" reads it; "git config key value" and "set" write
}

// gitConfigFile names the file `git config ARGS` writes, for the reason.
func (e *Engine) gitConfigFile(args []string) string {
	for i, a := range args {
		switch {
		case a == "--global":
			return filepath.Join(e.env.Home, ".gitconfig")
		case a == "--system":
			return "/etc/gitconfig"
		case (a == "-f" || a == "--file") && i+1 < len(args):
			return command.ResolvePath(args[i+1], e.env).Abs
		case strings.HasPrefix(a, "--file="):
			return command.ResolvePath(strings.TrimPrefix(a, "--file="), e.env).Abs
		}
	}
	return filepath.Join(e.env.Cwd, ".git", "config")
}

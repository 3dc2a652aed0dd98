package command

import (
	"path"
	"strings"
)

// What the engine knows about the programs a command line runs. Everything
// the shell walker, the file effects, the default rules and the guard ask of
// a program name is answered here, so they cannot disagree:
//
//   - shells read a script (-c SCRIPT, a here-document, or their input);
//   - runners run another command given among their arguments (the
//     wrappers table says how to skip their options exactly; the others are
//     seen through by trying every suffix of their words, and every
//     argument that reads as a script);
//   - interpreters run code given inline (python3 -c, perl -e, awk '...');
//   - readers only read the files they name, unless one of their writing
//     flags is given (xxd IN OUT, tree -o FILE, yq -i, sort -o FILE);
//   - known programs run no command named in their arguments.
//
// A program in none of these tables is unknown: the engine cannot tell
// whether it runs its arguments, so deny and ask rules are tried on every
// suffix of its words and on every argument that reads as a script
// (`mytool rm x`, `mytool --cmd "rm x"`).

// isShell reports whether name is a shell: sh, bash, zsh, dash, ksh, ksh93,
// mksh, ash, fish, tcsh, csh, yash, posh, rbash, and versioned names such as
// bash5 or bash-5.2.
func IsShell(name string) bool {
	if name == "" {
		return false
	}
	switch name {
	case "sh", "bash", "zsh", "dash", "ksh", "ksh93", "mksh", "pdksh", "oksh", "lksh", "ash", "fish",
		"tcsh", "csh", "yash", "posh", "rbash", "rzsh", "elvish", "nu", "xonsh", "pwsh", "es", "rc":
		return true
	}
	if last := name[len(name)-1]; len(name) < 3 || !(last >= '0' && last <= '9' || last == '.' || last == '-') {
		return false
	}
	base := strings.TrimRight(name, "0123456789.-")
	if base != name {
		switch base {
		case "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "tcsh", "csh", "yash":
			return true
		}
	}
	return false
}

// inlineCode maps a language interpreter to the options that give it code
// inline (the code is the option's value). awk-like programs take their
// program as the first operand instead (inlineOperand). The interpreters
// read closely (python, perl, ruby, node, php, lua, sqlite3) are described
// in full by interps (inline.go).
var inlineCode = Table[map[string][]string]{Make: func() map[string][]string {
	return map[string][]string{
		"python": {"-c"}, "python2": {"-c"}, "python3": {"-c"}, "pypy": {"-c"}, "pypy3": {"-c"},
		"perl": {"-e", "-E"}, "ruby": {"-e"}, "node": {"-e", "--eval", "-p", "--print"},
		"nodejs": {"-e", "--eval", "-p", "--print"}, "deno": {"eval"}, "bun": {"-e", "--eval"},
		"php": {"-r"}, "lua": {"-e"}, "luajit": {"-e"}, "Rscript": {"-e"}, "R": {"-e"},
		"osascript": {"-e"}, "tclsh": {}, "wish": {}, "expect": {"-c"}, "julia": {"-e"},
		"groovy": {"-e"}, "scala": {"-e"}, "jshell": {}, "guile": {"-c"}, "racket": {"-e"},
		"sqlite3": {}, "gdb": {"-ex", "--eval-command"}, "vim": {"-c", "--cmd"}, "vi": {"-c", "--cmd"},
		"nvim": {"-c", "--cmd"}, "emacs": {"--eval"}, "ex": {"-c"},
	}
}}

// inlineOperand are the programs whose first operand is a program text.
var inlineOperand = map[string]bool{"awk": true, "gawk": true, "mawk": true, "nawk": true, "busybox awk": true}

// codeEscapes are the words that let inline code start a command, write a
// file or load code from elsewhere, for the languages codeRisk has no rules
// of its own for (lua, R, julia, vim, gdb ...): inline code holding one of
// them, as a substring, is code the engine cannot see through.
var codeEscapes = []string{
	"system", "popen", "exec", "spawn", "subprocess", "os.", "child_process", "Process", "Runtime",
	"`", "|", "eval", "import", "require", "open", "write", "unlink", "remove", "rmtree", "shutil",
	"fs.", "File", "IO.", "Kernel", "syscall", "ctypes", "load", "dofile", "getline", "print >", "printf >",
	"!", "shell", "__", "globals", "compile", "pty",
}

// runnerSubcommands are subcommands that run the command given after them
// (npm exec, uv run, docker run ...): their words after the subcommand are
// tried as commands by deny and ask rules.
var RunnerSubcommands = Table[map[string]map[string]bool]{Make: func() map[string]map[string]bool {
	return map[string]map[string]bool{
		"npm":     {"exec": true, "x": true},
		"pnpm":    {"exec": true, "dlx": true},
		"yarn":    {"exec": true, "dlx": true},
		"bun":     {"x": true, "run": true},
		"uv":      {"run": true, "tool": true},
		"poetry":  {"run": true},
		"pipenv":  {"run": true},
		"pdm":     {"run": true},
		"hatch":   {"run": true},
		"rye":     {"run": true},
		"pipx":    {"run": true},
		"conda":   {"run": true},
		"mamba":   {"run": true},
		"bundle":  {"exec": true},
		"direnv":  {"exec": true},
		"mise":    {"exec": true, "x": true},
		"asdf":    {"exec": true},
		"rbenv":   {"exec": true},
		"pyenv":   {"exec": true},
		"nodenv":  {"exec": true},
		"devbox":  {"run": true},
		"docker":  {"run": true, "exec": true},
		"podman":  {"run": true, "exec": true},
		"kubectl": {"exec": true, "run": true},
		"nix":     {"shell": true, "develop": true, "run": true},
		"cargo":   {"run": true},
		"go":      {"run": true},
		"git":     {"submodule": true, "bisect": true},
		"op":      {"run": true},
		"dotenv":  {"run": true},
		"tmux":    {"new-session": true, "new": true, "new-window": true, "neww": true, "send-keys": true, "send": true, "split-window": true, "splitw": true, "run-shell": true, "run": true, "respawn-pane": true},
		"screen":  {},
	}
}}

// runners run a command given among their arguments, and are not in the
// wrappers table (which skips options exactly): chroot NEWROOT CMD, flock
// FILE CMD, watch CMD, busybox APPLET, script -c CMD, npx PKG, ...
var runners = Table[map[string]bool]{Make: func() map[string]bool {
	return map[string]bool{
		"chroot": true, "flock": true, "watch": true, "busybox": true, "toybox": true, "script": true,
		"npx": true, "bunx": true, "pnpx": true, "uvx": true, "strace": true, "ltrace": true,
		"valgrind": true, "perf": true, "gdbserver": true, "entr": true, "parallel": true, "sem": true,
		"sg": true, "newgrp": true, "setpriv": true, "unshare": true, "nsenter": true, "firejail": true,
		"bwrap": true, "proot": true, "fakeroot": true, "faketime": true, "torsocks": true, "proxychains": true,
		"proxychains4": true, "systemd-run": true, "run0": true, "dbus-run-session": true, "dbus-launch": true,
		"xvfb-run": true, "caffeinate": true, "chronic": true, "ssh-agent": true, "rlwrap": true,
		"catchsegv": true, "with-contenv": true, "tini": true, "dumb-init": true, "gosu": true, "su-exec": true,
		"setarch": true, "linux32": true, "linux64": true, "numactl": true, "cpulimit": true, "prlimit": true,
		"ssh": true, "at": true, "batch": true, "nix-shell": true, "screen": true, "tmux": true,
		"make": false, "trap": true, "alias": true, "complete": true, "bind": true, "hyperfine": true,
		"retry": true, "until": false, "doas": true, "pkexec": true, "sudo": true, "su": true, "runuser": true,
		"sshpass": true, "expect": true, "script-replay": true, "daemonize": true, "start-stop-daemon": true,
		"ionice": true, "chrt": true, "taskset": true, "nice": true, "nohup": true, "setsid": true,
		"stdbuf": true, "unbuffer": true, "time": true, "timeout": true, "env": true, "xargs": true,
		"command": true, "exec": true, "builtin": true, "eval": true, "source": true, ".": true,
	}
}}

// known are programs that do not run a command named among their
// arguments (the first word of each line is the usual spelling; aliases of
// the same program follow).
var known = [...]string{
	// coreutils, util-linux, findutils and the like
	"cat tac ls dir vdir cp mv rm rmdir mkdir touch ln link unlink chmod chown chgrp head tail wc sort uniq cut tr tee " +
		"echo printf pwd basename dirname realpath readlink stat du df date sleep true false test [ [[ yes seq id whoami " +
		"groups uname hostname arch nproc mktemp diff diff3 sdiff cmp comm join paste fold fmt nl od base32 base64 basenc " +
		"md5sum sha1sum sha224sum sha256sum sha384sum sha512sum b2sum cksum sum shuf split csplit expand unexpand " +
		"truncate shred install dd sync tsort numfmt factor expr printenv tty users who w uptime logname pathchk " +
		"file find locate which whereis type hash less more most bat batcat column rev look strings hexdump xxd " +
		"tree lsof ps pgrep pkill kill killall top htop free vmstat iostat lsblk lscpu mount umount blkid findmnt " +
		"getent iconv cal ncal clear reset stty tput lsattr chattr getfacl setfacl fuser pidof pstree renice ulimit " +
		"umask read mapfile readarray declare typeset local export readonly unset shift set shopt let wait jobs fg bg " +
		"disown suspend cd pushd popd dirs history fc help logout exit return break continue getopts caller times " +
		"enable : echo",
	// text and data tools
	"grep egrep fgrep rg ag ack sed jq yq gojq xq jless fx csvlook mlr xsv qsv pandoc tidy xmllint xmlstarlet " +
		"dos2unix unix2dos iconv envsubst m4 bc dc units aspell hunspell wdiff colordiff delta difft patch",
	// archives and compression
	"tar zip unzip gzip gunzip zcat bzip2 bunzip2 bzcat xz unxz xzcat zstd unzstd zstdcat lz4 7z 7za 7zr rar unrar " +
		"cpio ar pax",
	// version control, hosting and editors' helpers
	"git gh glab hg svn git-lfs tig lazygit pre-commit",
	// package managers and build tools (their run subcommands are in runnerSubcommands)
	"npm pnpm yarn bun node-gyp corepack pip pip3 pipx uv poetry pipenv pdm hatch rye conda mamba micromamba gem bundle " +
		"bundler rake cargo rustup rustc rustfmt clippy-driver go gofmt goimports golangci-lint gopls staticcheck " +
		"dotnet mvn mvnw gradle gradlew ant sbt lein clojure mix elixir erl rebar3 stack cabal ghc ghci dune opam " +
		"swift swiftc xcodebuild xcrun composer cmake ctest cpack ninja meson bazel bazelisk buck pants gcc g++ cc c++ " +
		"clang clang++ ld lld gold as nasm objdump readelf nm strip ldd javac java jar kotlinc tsc esbuild swc vite " +
		"webpack rollup parcel turbo nx lerna jest vitest mocha ava pytest tox nox coverage mypy pyright ruff black " +
		"isort flake8 pylint bandit eslint prettier stylelint biome rubocop shellcheck shfmt hadolint yamllint " +
		"markdownlint actionlint terraform tofu terragrunt packer pulumi ansible-lint helm kubectl kustomize kind " +
		"minikube k9s docker podman docker-compose buildah skopeo apt apt-get apt-cache dpkg brew port nix asdf mise " +
		"rbenv pyenv nodenv nvm fnm volta sdk direnv devbox",
	// network clients
	"curl wget http https xh aria2c nc ncat netcat socat telnet ftp sftp scp rsync dig nslookup host ping ping6 " +
		"traceroute tracepath mtr ip ifconfig route ss netstat openssl gpg gpg2 ssh-keygen ssh-add ssh-copy-id " +
		"aws gcloud az doctl flyctl heroku vercel netlify wrangler",
	// databases
	"psql pg_dump pg_restore createdb dropdb mysql mysqldump mongosh mongo redis-cli sqlcmd duckdb",
	// misc
	"man info apropos open xdg-open pbcopy pbpaste xclip xsel notify-send say tmuxinator code subl " +
		"convert magick ffmpeg ffprobe identify exiftool pdftotext qpdf gs wkhtmltopdf lsusb lspci dmesg " +
		"journalctl systemctl service launchctl crontab ssh-keyscan base58 uuidgen openssl age sops vault " +
		"http-server serve live-server ngrok",
}

// progBits is everything the tables of this file say about one program
// name, gathered in one map so a command costs one look-up.
type progBits uint16

const (
	progKnown progBits = 1 << iota
	progRunner
	progShell
	progInline
	progInlineOperand
	progWrapper
	progRunnerSub
	progReader
	progWritesModeled
	progWriter
	progMetaOnly
	progWriteFlags   // writeFlags holds flags for the program (a reader some flag makes write)
	progWriteOperand // writeOperand holds the program
)

// progs is made on first use, from the tables above.
var progs = Table[map[string]progBits]{Make: makeProgs}

// progBits is progs.Get()[name], kept for the last few names (w may be
// nil: the table itself). The table is made once and never changes, so a
// kept answer is the table's, on this line and the next ones: a name is
// kept by value (progKey), so the answers outlive the call (bashCall.reset
// keeps them) without keeping any of its strings alive.
func (w *shellWalker) progBits(name string) progBits {
	if w == nil || name == "" || len(name) > len(progKey{}.b) {
		return progs.Get()[name]
	}
	for i := range w.progNames {
		if k := &w.progNames[i]; int(k.n) == len(name) && string(k.b[:k.n]) == name {
			return w.progVals[i]
		}
	}
	b := progs.Get()[name]
	i := w.progNext % uint8(len(w.progNames))
	w.progNames[i].n = uint8(copy(w.progNames[i].b[:], name))
	w.progVals[i] = b
	w.progNext++
	return b
}

// progKey is a program name of up to 15 bytes, held by value (n: its length).
type progKey struct {
	n uint8
	b [15]byte
}

func makeProgs() map[string]progBits {
	progs := make(map[string]progBits, 1024)
	set := func(names map[string]bool, b progBits) {
		for n, ok := range names {
			if ok {
				progs[n] |= b
			}
		}
	}
	for _, list := range known {
		for rest := list; rest != ""; {
			var name string
			name, rest = nextField(rest)
			if name != "" {
				progs[name] |= progKnown
			}
		}
	}
	set(runners.Get(), progRunner)
	set(readers.Get(), progReader)
	set(writesModeled.Get(), progWritesModeled)
	set(writers.Get(), progWriter)
	set(metaOnly.Get(), progMetaOnly)
	set(inlineOperand, progInlineOperand)
	for n := range inlineCode.Get() {
		progs[n] |= progInline
	}
	for n := range wrappers.Get() {
		progs[n] |= progWrapper
	}
	for n := range RunnerSubcommands.Get() {
		progs[n] |= progRunnerSub
	}
	for n, flags := range writeFlags.Get() {
		if len(flags) > 0 { // (an empty list names no flag to look for)
			progs[n] |= progWriteFlags
		}
	}
	set(writeOperand, progWriteOperand)
	return progs
}

// nextField returns the first space-separated field of s and what follows
// it, without allocating (strings.Fields would make a slice of them all).
func nextField(s string) (field, rest string) {
	s = strings.TrimLeft(s, " ")
	if i := strings.IndexByte(s, ' '); i >= 0 {
		return s[:i], s[i:]
	}
	return s, ""
}

// programName is the name a command word runs, without its folder.
func programName(word string) string {
	return path.Base(word)
}

// isKnownProgram reports whether the engine knows what a program does with
// its arguments (whether or not it runs them).
func isKnownProgram(name string) bool {
	if progs.Get()[name]&(progKnown|progRunner|progInline|progWrapper|progInlineOperand) != 0 || IsShell(name) {
		return true
	}
	return strings.HasPrefix(name, "mkfs") || strings.HasPrefix(name, "python3.")
}

// readers are programs that only read the files they name, as long as no
// flag of writeFlags is given (and, for those with writeOperand, no second
// operand: `xxd IN OUT` writes OUT).
var readers = Table[map[string]bool]{Make: func() map[string]bool {
	return map[string]bool{
		"cat": true, "tac": true, "less": true, "more": true, "most": true, "head": true, "tail": true, "grep": true,
		"egrep": true, "fgrep": true, "rg": true, "ag": true, "ack": true, "ls": true, "dir": true, "wc": true,
		"diff": true, "cmp": true, "comm": true, "file": true, "stat": true, "du": true, "df": true, "md5sum": true,
		"sha1sum": true, "sha256sum": true, "sha512sum": true, "cksum": true, "b2sum": true, "bat": true, "batcat": true,
		"echo": true, "printf": true, "test": true, "[": true, "realpath": true, "readlink": true, "basename": true,
		"dirname": true, "cd": true, "pushd": true, "tree": true, "nl": true, "od": true, "xxd": true, "hexdump": true,
		"strings": true, "jq": true, "yq": true, "true": true, ":": true, "pwd": true, "which": true, "type": true,
		"column": true, "rev": true, "cut": true, "tr": true, "uniq": true, "sort": true, "fold": true, "fmt": true,
		"base64": true, "paste": true, "join": true, "expand": true, "lsattr": true, "getfacl": true, "find": true,
		"whoami": true, "uname": true, "date": true,
	}
}}

// writeFlags are the flags that make a reader write a file (the flag's
// value, or the operand after it, is the file written; "" = in place).
var writeFlags = Table[map[string][]string]{Make: func() map[string][]string {
	return map[string][]string{
		"tree":   {"-o"},
		"date":   {"-s", "--set"}, // sets the clock
		"sort":   {"-o", "--output"},
		"yq":     {"-i", "--inplace"},
		"jq":     {},
		"xxd":    {},
		"uniq":   {},
		"find":   {"-delete", "-fprint", "-fprint0", "-fprintf", "-fls", "-exec", "-execdir", "-ok", "-okdir"},
		"base64": {"-o", "--output"},
		"du":     {},
		"grep":   {},
		"tail":   {},
		"cut":    {},
	}
}}

// writeOperand are readers whose second operand, when given, is a file they
// write (xxd IN OUT, uniq IN OUT).
var writeOperand = map[string]bool{"xxd": true, "uniq": true}

// gitReads reports the git subcommands that only read, unless given
// --output (a switch: the walk asks it of every git command three times).
func gitReads(sub string) bool {
	switch sub {
	case "diff", "log", "status", "show", "blame", "ls-files", "grep",
		"rev-parse", "describe", "shortlog", "ls-tree", "cat-file", "rev-list",
		"whatchanged", "reflog", "ls-remote", "name-rev", "merge-base", "version":
		return true
	}
	return false
}

// ReadOnly reports whether a simple command only reads the files it names:
// a reader (or a reading git subcommand) used without a flag that writes.
func (cmd *Command) ReadOnly() bool {
	if cmd.roKnown {
		return cmd.ro // worked out once the line was walked (prepareBash)
	}
	return cmd.readOnly()
}

func (cmd *Command) readOnly() bool { return cmd.readOnlyBy(nil) }

// readOnlyBy is readOnly reading the tables through w's look-ups of the
// program table (progBits: Prepare asks it of a line's commands, whose
// names the walk looked up already).
func (cmd *Command) readOnlyBy(w *shellWalker) bool {
	name, ro, decided := cmd.readOnlyFixed()
	if decided {
		return ro
	}
	b := w.progBits(name)
	if b&progReader == 0 { // (readers, as the program table holds them)
		return false
	}
	var flags []string
	if b&progWriteFlags != 0 {
		flags = writeFlags.Get()[name] // (looked up once, not per argument)
	}
	return !writesBy(name, cmd.Args[1:], flags, b&progWriteOperand != 0)
}

// readOnlyFixed is what readOnly says of a command before its program's
// tables: false for no words, a name known at run time or an unseen
// command; git and sed by their own rules (decided is true for these);
// else the program's name, to be looked up.
func (cmd *Command) readOnlyFixed() (name string, ro, decided bool) {
	args := cmd.Args
	if len(args) == 0 || cmd.DynamicName || cmd.unseen != "" {
		return "", false, true
	}
	name = programName(args[0])
	switch name {
	case "git":
		sub, rest := gitSubcommand(args[1:])
		if !gitReads(sub) && !gitListsOnly(sub, rest) {
			return name, false, true
		}
		for _, a := range rest {
			if a == "--output" || strings.HasPrefix(a, "--output=") || a == "--ext-diff" {
				return name, false, true
			}
		}
		return name, true, true
	case "sed":
		return name, sedPrintsOnly(args[1:]), true // sed -n 1,20p FILE
	}
	return name, false, false
}

// writesBy reports whether a reader named name, given args, writes: by
// one of its write flags, xxd's -r, or (operand: a program whose second
// operand is written) more than one operand.
func writesBy(name string, args, flags []string, operand bool) bool {
	for _, a := range args {
		for _, f := range flags {
			if a == f || (strings.HasPrefix(f, "--") && hasOptEq(a, f)) ||
				(!strings.HasPrefix(f, "--") && len(f) == 2 && strings.HasPrefix(a, f) && !strings.HasPrefix(a, "--")) {
				return true
			}
		}
		if name == "xxd" && (a == "-r" || a == "-revert") {
			return true
		}
	}
	if operand {
		if _, ops := SplitFlags(args); len(ops) > 1 {
			return true
		}
	}
	return false
}

// gitSubcommand skips git's own options (-C DIR, -c KEY=VALUE, --git-dir
// DIR, ...) and returns the subcommand and its arguments.
func gitSubcommand(args []string) (string, []string) {
	i := 0
	for i < len(args) && strings.HasPrefix(args[i], "-") {
		switch args[i] {
		case "-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path", "--config-env", "--super-prefix":
			i++
		}
		i++
	}
	if i >= len(args) {
		return "", nil
	}
	return args[i], args[i+1:]
}

// codeEnv are variables whose value is a command some program runs
// (GIT_EXTERNAL_DIFF='rm -rf x;' git diff): the value is checked as a
// script of its own.
var codeEnv = Table[map[string]bool]{Make: func() map[string]bool {
	return map[string]bool{
		"GIT_EXTERNAL_DIFF": true, "GIT_PAGER": true, "PAGER": true, "MANPAGER": true, "EDITOR": true, "VISUAL": true,
		"GIT_EDITOR": true, "GIT_SEQUENCE_EDITOR": true, "GIT_SSH_COMMAND": true, "GIT_SSH": true, "GIT_ASKPASS": true,
		"SSH_ASKPASS": true, "SUDO_ASKPASS": true, "PROMPT_COMMAND": true, "GIT_PROXY_COMMAND": true, "LESSOPEN": true,
		"LESSCLOSE": true, "BROWSER": true, "FCEDIT": true, "PS0": true, "PS1": true, "PS4": true,
	}
}}

// safeEnv are the variables that may stand before a command an allow
// pattern covers: they change how it prints or behaves, not what runs.
var SafeEnv = Table[map[string]bool]{Make: func() map[string]bool {
	return map[string]bool{
		"CI": true, "NO_COLOR": true, "FORCE_COLOR": true, "CLICOLOR": true, "CLICOLOR_FORCE": true, "TERM": true,
		"COLUMNS": true, "LINES": true, "LANG": true, "LC_ALL": true, "LC_CTYPE": true, "LC_MESSAGES": true, "TZ": true,
		"DEBUG": true, "VERBOSE": true, "RUST_BACKTRACE": true, "RUST_LOG": true, "GOFLAGS": true, "CGO_ENABLED": true,
		"GOOS": true, "GOARCH": true, "GOTOOLCHAIN": false, "NODE_ENV": true, "PYTHONUNBUFFERED": true,
		"PYTHONDONTWRITEBYTECODE": true, "PYTHONHASHSEED": true, "GIT_PAGER": false, "PAGER": false,
		"GIT_TERMINAL_PROMPT": true, "GIT_AUTHOR_NAME": true, "GIT_AUTHOR_EMAIL": true, "GIT_COMMITTER_NAME": true,
		"GIT_COMMITTER_EMAIL": true, "GIT_AUTHOR_DATE": true, "GIT_COMMITTER_DATE": true, "HUSKY": true,
		"SKIP": true, "TF_LOG": true, "LOG_LEVEL": true, "PORT": true, "HOST": true, "ENV": false, "BASH_ENV": false,
	}
}}

// safeGitConfig are the `git -c KEY=VALUE` keys that cannot make git run a
// command or read a file of their choosing (a prefix ends in ".").
var safeGitConfig = []string{
	"user.name", "user.email", "color.", "core.quotepath", "core.autocrlf", "core.safecrlf", "advice.",
	"init.defaultbranch", "commit.gpgsign", "tag.gpgsign", "log.", "pull.rebase", "pull.ff", "merge.ff",
	"push.default", "push.autosetupremote", "rebase.autosquash", "rebase.autostash", "fetch.prune",
	"diff.renames", "diff.algorithm", "diff.nopager", "status.", "column.", "pager.", "i18n.", "gc.auto",
	"safe.directory", "protocol.version", "http.sslverify", "maintenance.auto", "branch.autosetupmerge",
}

// safeGitKey reports whether a git -c key is on the safe list. "pager." is
// only safe with a boolean value (pager.log=false), checked by the caller.
func safeGitKey(key string) bool {
	key = strings.ToLower(key)
	for _, s := range safeGitConfig {
		if key == s || (strings.HasSuffix(s, ".") && strings.HasPrefix(key, s)) {
			return true
		}
	}
	return false
}

// splitFlags separates options from operands ("--" ends the options).
func SplitFlags(args []string) (flags, operands []string) {
	end := false
	for _, a := range args {
		switch {
		case end:
			operands = append(operands, a)
		case a == "--":
			end = true
		case len(a) > 1 && a[0] == '-':
			flags = append(flags, a)
		default:
			operands = append(operands, a)
		}
	}
	return flags, operands
}

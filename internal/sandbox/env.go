package sandbox

import (
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// sessionEnv are the variables that name a socket or a service of the
// person's session (the editor, the SSH and GPG agents, D-Bus, Docker, the
// display and terminal multiplexers): a process inside that reaches one acts
// outside the sandbox. They never reach the sandbox, whatever
// sandbox_env_allow says.
var sessionEnv = []string{
	"NVIM", "NVIM_LISTEN_ADDRESS", "XDG_RUNTIME_DIR",
	"SSH_AUTH_SOCK", "SSH_AGENT_PID", "GPG_AGENT_INFO",
	"DBUS_SESSION_BUS_ADDRESS", "DOCKER_HOST",
	"WAYLAND_DISPLAY", "DISPLAY", "XAUTHORITY",
	"TMUX", "TMUX_PANE", "STY", "KITTY_LISTEN_ON", "WEZTERM_UNIX_SOCKET",
	"SWAYSOCK", "I3SOCK", "PULSE_SERVER", "SYSTEMD_EXEC_PID",
}

// SecretEnvPatterns are the names (shell patterns, matched on the
// upper-cased name) of variables that look like credentials: they stay
// outside unless the claude CLI needs them (cliEnv) or sandbox_env_allow
// names them.
var SecretEnvPatterns = []string{
	"*_TOKEN", "*_TOKENS", "*_KEY", "*_KEYS", "*_SECRET", "*_SECRETS", "*_PASSWORD", "*_PASSWD",
	"*_CREDENTIALS", "*_CREDENTIAL", "*_API_KEY_*", "*_ACCESS_KEY_*", "*_SECRET_*", "*_TOKEN_*",
	"AWS_*", "GITHUB_TOKEN", "GH_TOKEN", "GH_ENTERPRISE_TOKEN", "NPM_TOKEN", "NODE_AUTH_TOKEN",
	"PGPASSWORD", "MYSQL_PWD", "DATABASE_URL", "REDIS_URL", "VAULT_TOKEN", "HF_TOKEN",
	"GOOGLE_APPLICATION_CREDENTIALS", "AZURE_CLIENT_SECRET", "DOCKER_AUTH_CONFIG",
	"CI_JOB_TOKEN", "TWINE_PASSWORD", "CARGO_REGISTRY_TOKEN",
}

// cliEnv are the variables the claude CLI itself needs to reach its API
// (and vibing's own): they pass although they look like credentials.
var cliEnv = []string{
	"ANTHROPIC_*", "CLAUDE_*", "CLAUDE_CODE_*", "VIBING_*",
}

// cloudEnv are the credentials the CLI needs when it talks to the API
// through a cloud provider (CLAUDE_CODE_USE_BEDROCK, CLAUDE_CODE_USE_VERTEX).
var cloudEnv = map[string][]string{
	"CLAUDE_CODE_USE_BEDROCK": {"AWS_*"},
	"CLAUDE_CODE_USE_VERTEX":  {"GOOGLE_APPLICATION_CREDENTIALS", "CLOUD_ML_REGION", "ANTHROPIC_VERTEX_PROJECT_ID"},
}

func matchAny(name string, pats []string) bool {
	up := strings.ToUpper(name)
	for _, p := range pats {
		if ok, _ := path.Match(strings.ToUpper(p), up); ok {
			return true
		}
	}
	return false
}

// FilterEnv returns env without the session's sockets and without the
// secret-looking variables the CLI does not need and allow does not name;
// withheld are the names left out (sorted).
func FilterEnv(env []string, allow []string) (kept, withheld []string) {
	pass := append(append([]string(nil), cliEnv...), allow...)
	for _, kv := range env {
		name, val, _ := strings.Cut(kv, "=")
		if v, ok := cloudEnv[strings.ToUpper(name)]; ok && val != "" && val != "0" && !strings.EqualFold(val, "false") {
			pass = append(pass, v...)
		}
	}
	seen := map[string]bool{}
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		out := matchAny(name, sessionEnv) || matchAny(name, SecretEnvPatterns) && !matchAny(name, pass)
		if !out {
			kept = append(kept, kv)
			continue
		}
		if !seen[name] {
			seen[name] = true
			withheld = append(withheld, name)
		}
	}
	sort.Strings(withheld)
	return kept, withheld
}

// sessionSockets are the files and folders of the person's session that
// the sandbox hides: the runtime folders ($XDG_RUNTIME_DIR, /run/user/UID)
// and every socket a session variable names wherever it lies.
func sessionSockets(getenv func(string) string) (dirs, files []string) {
	addDir := func(p string) {
		if !filepath.IsAbs(p) {
			return
		}
		r := realPath(p)
		if fi, err := os.Stat(r); err == nil && fi.IsDir() && r != "/" {
			dirs = appendOnce(dirs, r)
		}
	}
	addDir(getenv("XDG_RUNTIME_DIR"))
	addDir("/run/user/" + strconv.Itoa(os.Getuid()))
	addFile := func(p string) {
		if !filepath.IsAbs(p) {
			return
		}
		r := realPath(p)
		if fi, err := os.Lstat(r); err == nil && !fi.IsDir() {
			files = appendOnce(files, r)
		}
	}
	for _, n := range []string{"NVIM", "NVIM_LISTEN_ADDRESS", "SSH_AUTH_SOCK", "KITTY_LISTEN_ON", "WEZTERM_UNIX_SOCKET", "SWAYSOCK", "I3SOCK"} {
		v := getenv(n)
		v = strings.TrimPrefix(v, "unix:")
		addFile(v)
	}
	for _, n := range []string{"GPG_AGENT_INFO", "TMUX"} { // PATH:PID:... and PATH,PID,N
		v := getenv(n)
		if i := strings.IndexAny(v, ":,"); i > 0 {
			v = v[:i]
		}
		addFile(v)
	}
	if h := getenv("DOCKER_HOST"); strings.HasPrefix(h, "unix://") {
		addFile(strings.TrimPrefix(h, "unix://"))
	}
	for _, part := range strings.Split(getenv("DBUS_SESSION_BUS_ADDRESS"), ";") {
		for _, kv := range strings.Split(strings.TrimPrefix(part, "unix:"), ",") {
			if p, ok := strings.CutPrefix(kv, "path="); ok {
				addFile(p)
			}
		}
	}
	if w := getenv("WAYLAND_DISPLAY"); filepath.IsAbs(w) {
		addFile(w)
	}
	sort.Strings(dirs)
	sort.Strings(files)
	return dirs, files
}

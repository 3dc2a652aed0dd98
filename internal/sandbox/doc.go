// Package sandbox runs the claude CLI inside bubblewrap with a view of the
// file system derived from the effective policy (SPEC §14): what the engine
// cannot read (a script file, python3 -c, the CLI's own reads of @paths and
// CLAUDE.md imports) it cannot refuse, but the kernel can.
//
// Derive builds the View at the start of a turn from a chat's engine:
//
//   - writable: the working directory, what the CLI keeps its state in
//     (~/.claude), the usual build caches (~/.cache, ~/.npm, the Go module
//     cache) and the sandbox_writable folders; a private /tmp;
//   - read-only: everything else, and inside the writable folders every
//     guarded path (.vibing/, the chat, every policy file of every layer, the
//     trust store, the binary) and the files that run code by themselves
//     (.claude/, .mcp.json, CLAUDE.md, .git/hooks, .git/config, the CLI's own
//     settings, commands, agents, skills and hooks), unless an allow rule
//     names one (then the engine's decision stays in charge); one that does
//     not exist is held by an empty read-only placeholder so it cannot be
//     created;
//   - hidden: the existing files and folders a Read deny rule names, found by
//     a bounded walk of the rule's folder (the project and ~ for a bare
//     name), each covered by an empty read-only file or folder;
//   - the person's session stays outside (env.go): $XDG_RUNTIME_DIR and
//     /run/user/UID are empty, the sockets $NVIM, $SSH_AUTH_SOCK, D-Bus,
//     Docker, GPG and tmux name are covered by an empty file, their
//     variables and the secret-looking ones (unless the CLI needs them or
//     sandbox_env_allow names them) are left out of the environment, and a
//     seccomp filter refuses TIOCSTI and TIOCLINUX (seccomp.go).
//
// Prepare turns a View into the bwrap arguments (and the placeholders on
// disk); Wrap puts them in front of a command. With Options.Egress the
// sandbox has a network namespace of its own (no host, port or abstract
// Unix socket outside), and vibing-agent sandbox-net runs first inside it
// as the forwarder to the proxy outside (internal/egress).
package sandbox

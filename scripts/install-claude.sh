#!/usr/bin/env bash
# install-claude.sh — install the pinned claude CLI into <repo>/.deps/claude and link
# <repo>/.deps/bin/claude to its native binary.
#
# The npm package @anthropic-ai/claude-code carries the real program in a per-platform
# optional dependency (@anthropic-ai/claude-code-linux-x64/claude). Its postinstall only
# wires up that binary, so install scripts are skipped (--ignore-scripts) and the link is
# made here. Nothing outside .deps/ changes.
#
# Idempotent: does nothing when .deps/bin/claude --version already reports the pinned version.
# Usage: scripts/install-claude.sh        (no prompts; CLAUDE_VERSION=x.y.z overrides the pin)
set -euo pipefail

version=${CLAUDE_VERSION:-2.1.330}
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
deps="$repo/.deps"
prefix="$deps/claude"
native_rel="claude/node_modules/@anthropic-ai/claude-code-linux-x64/claude"
link="$deps/bin/claude"

step="starting"
die() {
	echo "install-claude: $*" >&2
	exit 1
}
trap 'echo "install-claude: failed while ${step} (line ${LINENO})" >&2' ERR

# installed_version prints the version .deps/bin/claude reports ("2.1.330 (Claude Code)").
installed_version() {
	[[ -x "$link" ]] || return 1
	# An isolated HOME: --version must not read or create the person's ~/.claude.
	local home out rc=0
	home=$(mktemp -d)
	out=$(HOME=$home DISABLE_AUTOUPDATER=1 "$link" --version 2>/dev/null) || rc=$?
	rm -rf "$home"
	[[ $rc -eq 0 ]] || return 1
	echo "${out%%$'\n'*}"
}

if v=$(installed_version) && [[ "$v" == "$version "* || "$v" == "$version" ]]; then
	echo "install-claude: claude $v already at .deps/bin/claude"
	exit 0
fi

[[ "$(uname -s)/$(uname -m)" == Linux/x86_64 ]] || die "only Linux x86_64 is supported (the linux-x64 native binary)"
command -v npm >/dev/null || die "npm is required (apt-get install npm, or Node.js 18+)"

step="installing @anthropic-ai/claude-code@$version with npm"
mkdir -p "$prefix"
npm install \
	--prefix "$prefix" \
	--no-audit --no-fund --ignore-scripts \
	--no-update-notifier --save-exact --loglevel=error \
	"@anthropic-ai/claude-code@$version" >/dev/null

step="checking the installed package"
native="$deps/$native_rel"
[[ -f "$native" ]] || die "npm did not install the native binary $native (was the optional dependency @anthropic-ai/claude-code-linux-x64 skipped? check npm's omit/optional settings)"
chmod 755 "$native"

step="linking .deps/bin/claude"
mkdir -p "$deps/bin"
ln -sfn "../$native_rel" "$link"

step="checking .deps/bin/claude --version"
v=$(installed_version) || die "$link --version failed"
[[ "$v" == "$version "* || "$v" == "$version" ]] || die "$link reports '$v', want $version"
echo "install-claude: claude $v installed at .deps/bin/claude"

#!/usr/bin/env bash
# demo.sh — Neovim on a demo chat with the scripted demo agent (`make demo`).
#
# Makes a throwaway demo project (scripts/demo-project.sh) in a temp folder and
# opens Neovim on its chat with the plugin from this checkout and
# setup({ backend = "demo" }). Neovim runs with its own XDG_* folders inside
# that temp folder, so your configuration, data and audit log are untouched.
# It builds nothing: `make demo` builds bin/vibing-agent first.
#
#   VIBING_DEMO_NVIM=nvim       the Neovim to run (default: nvim on PATH, else Neovim 0.12
#                               unpacked into .deps/ by scripts/install-nvim.sh 0.12)
#   VIBING_DEMO_AGENT=PATH      vibing-agent (default: bin/vibing-agent of this checkout)
#   VIBING_DEMO_DIR=DIR         use DIR (kept afterwards) instead of a temp folder
#   VIBING_DEMO_HEADLESS=1      (or --headless) answer the prompts from a script, print
#                               the chat and exit: 0 when the demo ran to completion
#
# Usage: scripts/demo.sh [--headless]
set -euo pipefail

die() {
	echo "demo: $*" >&2
	exit 1
}

root=$(cd "$(dirname "$0")/.." && pwd)
headless=${VIBING_DEMO_HEADLESS:-}
if [[ ${1-} == --headless ]]; then
	headless=1
	shift
fi
[[ $# -eq 0 ]] || die "usage: scripts/demo.sh [--headless]"

agent=${VIBING_DEMO_AGENT:-$root/bin/vibing-agent}
[[ -x $agent ]] || die "$agent is missing: run make demo (it builds vibing-agent first)"
if [[ -n ${VIBING_DEMO_NVIM:-} ]]; then
	nvim_bin=$VIBING_DEMO_NVIM
elif system_nvim=$(command -v nvim 2>/dev/null) && [[ -x $system_nvim ]]; then
	nvim_bin=$system_nvim
else
	# No Neovim on the machine: the newest one unpacked privately (skipped when present).
	"$root/scripts/install-nvim.sh" 0.12 >&2 || die "no nvim on PATH and Neovim 0.12 could not be unpacked into .deps/; set VIBING_DEMO_NVIM"
	nvim_bin=$root/.deps/bin/nvim-0.12
fi
command -v "$nvim_bin" >/dev/null 2>&1 || die "Neovim ('$nvim_bin') not found; set VIBING_DEMO_NVIM"

if [[ -n ${VIBING_DEMO_DIR:-} ]]; then
	tmp=$VIBING_DEMO_DIR
	mkdir -p "$tmp"
else
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/vibing-demo.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
fi
tmp=$(cd "$tmp" && pwd)
for d in config data state cache; do
	mkdir -p "$tmp/xdg/$d"
done
export XDG_CONFIG_HOME=$tmp/xdg/config XDG_DATA_HOME=$tmp/xdg/data XDG_STATE_HOME=$tmp/xdg/state XDG_CACHE_HOME=$tmp/xdg/cache
unset VIMINIT NVIM_APPNAME VIBING_CLAUDE_BIN
export VIBING_DEMO_ROOT=$root VIBING_DEMO_BIN=$agent VIBING_DEMO_HEADLESS=$headless

chat=$("$root/scripts/demo-project.sh" "$tmp/project")
cd "$tmp/project"

if [[ -n $headless ]]; then
	timeout 90 "$nvim_bin" --headless -u "$root/tests/demo/init.lua" "$chat"
	exit $?
fi
echo "vibing demo: a throwaway project in $tmp/project (removed when Neovim exits)"
"$nvim_bin" -u "$root/tests/demo/init.lua" "$chat"

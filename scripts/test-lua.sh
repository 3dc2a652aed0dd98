#!/usr/bin/env bash
# test-lua.sh — run the Lua specs (tests/lua/*_spec.lua) in headless Neovim.
#
#   VIBING_TEST_NVIM   the nvim binary (default: nvim); the script fails if it is missing
#   VIBING_TEST_SPECS  space-separated spec files (default: all)
#   VIBING_TEST_NO_BUILD=1  do not rebuild bin/vibing-agent (make build) first
#
#   scripts/test-lua.sh           run the specs
#   scripts/test-lua.sh bench     RPC round trip median and plugin load time
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
nvim_bin=${VIBING_TEST_NVIM:-nvim}
if ! command -v "$nvim_bin" >/dev/null 2>&1; then
	echo "test-lua: Neovim binary '$nvim_bin' not found (set VIBING_TEST_NVIM)" >&2
	exit 1
fi
case "$nvim_bin" in
*/*) nvim_bin=$(cd "$(dirname "$nvim_bin")" && pwd)/$(basename "$nvim_bin") ;;
esac

if [ -z "${VIBING_TEST_NO_BUILD:-}" ]; then
	make -s -C "$root" build
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export XDG_CONFIG_HOME="$tmp/config" XDG_DATA_HOME="$tmp/data" XDG_STATE_HOME="$tmp/state" XDG_CACHE_HOME="$tmp/cache"
export VIBING_TEST_TMP="$tmp"
unset VIMINIT NVIM_APPNAME
cd "$tmp"

"$nvim_bin" --version | head -n 1

if [ "${1:-}" = bench ]; then
	timeout 120 "$nvim_bin" --headless -u "$root/tests/minimal_init.lua" -c "luafile $root/tests/lua/bench.lua"
	# Plugin load time: the plugin/vibing.lua line of --startuptime (milliseconds).
	for _ in 1 2 3 4 5; do
		"$nvim_bin" --headless -u "$root/tests/minimal_init.lua" --startuptime "$tmp/startup.log" -c 'qa!'
	done
	awk '/plugin\/vibing.lua/ { n++; t = $2 + 0; if (n == 1 || t < best) best = t; sum += t }
		END { if (n == 0) { print "plugin load: plugin/vibing.lua not in --startuptime log"; exit 1 }
		      printf "plugin load (plugin/vibing.lua, --startuptime): best %.3f ms, mean %.3f ms over %d runs\n", best, sum / n, n }' "$tmp/startup.log"
	exit 0
fi

timeout 300 "$nvim_bin" --headless -u "$root/tests/minimal_init.lua" -c "luafile $root/tests/lua/run.lua"

#!/usr/bin/env bash
# demo-project.sh — make a small demo project for the scripted demo agent
# (`vibing-agent run --backend demo`, `make demo`) and print its chat's path.
#
# The project is plain files (no git): README.md, hello.py, a .env holding a fake secret,
# and .vibing/chat/demo.md, a chat whose rules show each kind of decision: Read, Glob and
# Grep allowed, WebFetch asked, Read(.env) refused, everything else decided by the default mode.
#
# Idempotent: files that exist are left alone (the demo's own edits survive); --reset writes
# every file afresh. A folder that is neither empty nor a demo project is refused, so the
# script never scatters files into a real project.
#
# Usage: scripts/demo-project.sh [--reset] DIR
set -euo pipefail

die() {
	echo "demo-project: $*" >&2
	exit 1
}

reset=0
if [[ ${1-} == --reset ]]; then
	reset=1
	shift
fi
[[ $# -eq 1 && -n $1 ]] || die "usage: scripts/demo-project.sh [--reset] DIR"
dir=$1
chat_rel=.vibing/chat/demo.md

if [[ -e $dir && ! -d $dir ]]; then
	die "$dir exists and is not a folder"
fi
if [[ -d $dir && ! -f $dir/$chat_rel ]] && [[ -n $(ls -A "$dir") ]]; then
	die "$dir is not empty and is not a demo project (no $chat_rel); pick a new folder"
fi
mkdir -p "$dir/.vibing/chat"
dir=$(cd "$dir" && pwd)

# put FILE [MODE]: write stdin to FILE (mode 644 by default) unless it exists (or --reset), atomically.
put() {
	local file=$dir/$1
	if [[ -e $file && $reset -eq 0 ]]; then
		cat >/dev/null
		return
	fi
	local tmp
	tmp=$(mktemp "$file.XXXXXX")
	cat >"$tmp"
	chmod "${2:-644}" "$tmp"
	mv -f "$tmp" "$file"
}

put README.md <<'MD'
# vibing demo project

A tiny project for trying vibing without an API key. The demo agent
(`vibing-agent run --backend demo`) reads this file, edits `hello.py`,
runs `python3 hello.py`, tries a `sudo` command that the default deny
rules refuse, pretends to fetch a web page, and proposes a new version of
this README (a diff: press d in its approval block to review it side by side).

Open `.vibing/chat/demo.md` and press <CR> to send the message.
MD

put hello.py <<'PY'
"""A tiny program for the vibing demo."""


def greet(name):
    return "Hello, " + name + "!"


if __name__ == "__main__":
    print(greet("world"))
PY

put .env 600 <<'ENV'
# A fake secret: the chat's deny list refuses Read(.env).
DEMO_API_TOKEN=demo-not-a-real-secret-0000
ENV

put "$chat_rel" <<'CHAT'
---
vibing.nvim: true
created_at: 2026-01-01T00:00:00
permissions_mode: default
permissions_allow: ["Read(**)"]
permissions_ask: ["WebFetch"]
permissions_deny: ["Read(.env)"]
---

# vibing demo

This chat talks to the built-in **demo** agent: a scripted stand-in that needs
no API key and no network. Its tool calls are real and go through the rules
above. Press <CR> in normal mode to send the message below.

## User

Show me what you can do in this project.
CHAT

echo "$dir/$chat_rel"

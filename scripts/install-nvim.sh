#!/usr/bin/env bash
# install-nvim.sh — unpack one Neovim release from Debian's packages into
# <repo>/.deps/nvim-<version>/ and write the wrapper <repo>/.deps/bin/nvim-<version>.
#
#   scripts/install-nvim.sh 0.7     Neovim 0.7.2 from Debian bookworm
#   scripts/install-nvim.sh 0.10    Neovim 0.10.x from Debian trixie
#   scripts/install-nvim.sh 0.12    Neovim 0.12.x from Debian sid
#
# Nothing on the machine changes: no package is installed, the machine's libc stays, and
# apt's own lists, cache, sources and dpkg database are never written. apt runs with a
# private configuration per suite under .deps/apt/<suite>/:
#   - a private .sources file whose mirror URI is read at run time from the machine's
#     /etc/apt/sources.list.d/*.sources or /etc/apt/sources.list (no mirror host is written
#     in this repo; VIBING_DEBIAN_MIRROR=<uri> overrides it);
#   - private package lists, package cache and download folder; no locking.
# Signatures are checked, never skipped: the private source is Signed-By the machine's
# /usr/share/keyrings/debian-archive-keyring.gpg (bookworm's 2023.3+deb12u1 and later
# carries the keys trixie and sid are signed with); there is no unsigned fallback.
#
# The .debs are extracted with `dpkg -x` into .deps/nvim-<version>/root. Debian's patchelf
# (itself unpacked the same way into .deps/patchelf/, from the machine's own suite) then
# sets the unpacked nvim's ELF interpreter to the unpacked loader and its RPATH to the
# unpacked library folders. So nvim runs as itself (/proc/self/exe and v:progpath are nvim,
# which Neovim 0.10+ re-executes with --embed to start its UI), and processes nvim starts
# (jobstart, :terminal, system()) still run against the machine's own libraries: no
# LD_LIBRARY_PATH is set. The wrapper exports VIMRUNTIME (the machine may have another
# Neovim's runtime in /usr/share/nvim) and puts <root>/usr/lib/nvim, where Debian keeps the
# tree-sitter parsers Neovim 0.10+ needs, on 'runtimepath'.
#
# Idempotent: does nothing when .deps/bin/nvim-<version> --version already reports that
# release. Runs as root or as a normal user; no prompts.
#
#   scripts/install-nvim.sh bwrap   bubblewrap (the agent's sandbox, SPEC §14) from the
#                                   machine's own suite into .deps/bwrap, linked as
#                                   .deps/bin/bwrap (for a machine without it; make deps
#                                   calls it only then)
#   scripts/install-nvim.sh strace  strace (the oracle's witness, SPEC §15) with its
#                                   libunwind, the same way, into .deps/strace, linked as
#                                   .deps/bin/strace (make deps calls it only where the
#                                   machine has none)
set -Eeuo pipefail

usage() {
	echo "usage: scripts/install-nvim.sh 0.7|0.10|0.12|bwrap|strace" >&2
	exit 2
}
[[ $# -eq 1 ]] || usage
version=$1
case "$version" in
bwrap)
	suite=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
	[[ -n "$suite" ]] || suite=bookworm
	packages=(bubblewrap)
	;;
strace)
	suite=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
	[[ -n "$suite" ]] || suite=bookworm
	packages=(strace libunwind8)
	;;
0.7)
	suite=bookworm
	packages=(neovim neovim-runtime libc6 libgcc-s1 libluajit-5.1-2 libluajit-5.1-common
		libmsgpackc2 libtermkey1 libtree-sitter0 libunibilium4 libuv1 libvterm0 lua-luv)
	;;
0.10)
	suite=trixie
	packages=(neovim neovim-runtime libc6 libgcc-s1 libluajit-5.1-2 libluajit-5.1-common
		libmsgpack-c2 libtree-sitter0.22 libunibilium4 libuv1t64 libvterm0 lua-lpeg lua-luv)
	;;
0.12)
	suite=sid
	packages=(neovim neovim-runtime libc6 libgcc-s1 libluajit-5.1-2 libluajit-5.1-common
		libtree-sitter0.26 libunibilium4 libutf8proc3 libuv1t64 lua-lpeg lua-luv)
	;;
*) usage ;;
esac

name="install-nvim-$version"
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
deps="$repo/.deps"
base="$deps/nvim-$version"
wrapper="$deps/bin/nvim-$version"
if [[ "$version" == bwrap ]]; then
	name="install-bwrap"
	base="$deps/bwrap"
	wrapper="$deps/bin/bwrap"
fi
keyring=/usr/share/keyrings/debian-archive-keyring.gpg

step="starting"
die() {
	echo "$name: $*" >&2
	exit 1
}
trap 'echo "$name: failed while ${step} (line ${LINENO})" >&2' ERR

installed_version() {
	[[ -x "$wrapper" ]] || return 1
	if [[ "$version" == strace ]]; then
		"$wrapper" -V 2>/dev/null | head -n 1
		return
	fi
	"$wrapper" --version 2>/dev/null | head -n 1
}

if [[ "$version" == strace ]]; then
	name="install-strace"
	base="$deps/strace"
	wrapper="$deps/bin/strace"
fi
if [[ "$version" == strace ]] && v=$(installed_version) && [[ "$v" == "strace -- version "* ]]; then
	echo "$name: $v already at .deps/bin/strace"
	exit 0
fi
if [[ "$version" == bwrap ]] && v=$(installed_version) && [[ "$v" == "bubblewrap "* ]]; then
	echo "$name: $v already at .deps/bin/bwrap"
	exit 0
fi
if v=$(installed_version) && [[ "$v" == "NVIM v$version."* ]]; then
	echo "$name: $v already at .deps/bin/nvim-$version"
	exit 0
fi

for cmd in apt-get dpkg dpkg-deb; do
	command -v "$cmd" >/dev/null || die "$cmd is required (this script expects Debian)"
done
[[ "$(dpkg --print-architecture)" == amd64 ]] || die "only amd64 is supported"
[[ -r "$keyring" ]] || die "$keyring is missing: install the debian-archive-keyring package"

# debian_mirror prints the first URI of the machine's main Debian entry: an http(s) URI
# whose path ends in /debian (not debian-security, not a third-party source), from the
# deb822 .sources files or, failing that, the one-line sources.list format.
debian_mirror() {
	local f
	{
		for f in /etc/apt/sources.list.d/*.sources; do
			[[ -r "$f" ]] || continue
			awk '
				/^[[:space:]]*#/ { next }
				tolower($1) == "uris:" {
					for (i = 2; i <= NF; i++) if ($i ~ /^https?:\/\/[^ ]*\/debian\/?$/) { sub(/\/$/, "", $i); print $i; exit }
				}
			' "$f"
		done
		for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
			[[ -r "$f" ]] || continue
			awk '
				$1 != "deb" { next }
				{
					for (i = 2; i <= NF; i++) if ($i ~ /^https?:\/\/[^ ]*\/debian\/?$/) { sub(/\/$/, "", $i); print $i; exit }
				}
			' "$f"
		done
	} | head -n 1
}

step="finding the Debian mirror"
mirror=${VIBING_DEBIAN_MIRROR:-$(debian_mirror)}
[[ -n "$mirror" ]] || die "no Debian mirror found: no URI ending in /debian in /etc/apt/sources.list.d/*.sources or /etc/apt/sources.list (set VIBING_DEBIAN_MIRROR)"

# fetch SUITE DEST PACKAGE... downloads the packages of SUITE with a private apt
# configuration under .deps/apt/SUITE (updating its lists first) and unpacks them into
# DEST, a fresh folder.
fetch() {
	local suite=$1 dest=$2
	shift 2
	local apt_dir="$deps/apt/$suite"
	mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/debs"
	local sources="$apt_dir/$suite.sources"
	cat >"$sources" <<EOF
Types: deb
URIs: $mirror
Suites: $suite
Components: main
Architectures: amd64
Signed-By: $keyring
EOF
	local opts=(
		-o "Dir::Etc::SourceList=$sources"
		-o Dir::Etc::SourceParts=/dev/null
		-o Dir::Etc::Preferences=/dev/null
		-o Dir::Etc::PreferencesParts=/dev/null
		-o Dir::State::status=/dev/null
		-o "Dir::State::Lists=$apt_dir/lists"
		-o "Dir::Cache=$apt_dir/cache"
		-o "Dir::Cache::Archives=$apt_dir/cache/archives"
		-o Debug::NoLocking=1
		-o APT::Get::Assume-Yes=true
		-o Acquire::Languages=none
		-o Acquire::IndexTargets::deb::DEP-11::DefaultEnabled=false
	)
	# As root, apt downloads as the _apt user, which may not be able to write into the repo.
	if [[ $EUID -eq 0 ]]; then
		opts+=(-o APT::Sandbox::User=root)
	fi

	step="updating the private $suite package lists (apt-get update)"
	apt-get -qq "${opts[@]}" -o APT::Update::Error-Mode=any update >/dev/null
	compgen -G "$apt_dir/lists/*_dists_${suite}_InRelease" >/dev/null ||
		die "apt-get update fetched no signed $suite InRelease from $mirror"

	step="downloading $* from $suite"
	local debs
	debs=$(mktemp -d "$apt_dir/debs/XXXXXX")
	(cd "$debs" && apt-get -qq "${opts[@]}" download "$@" >/dev/null)
	local p
	for p in "$@"; do
		compgen -G "$debs/${p}_*.deb" >/dev/null || die "apt-get download did not fetch $p from $suite"
	done

	step="unpacking the $suite packages (dpkg -x)"
	rm -rf "$dest"
	mkdir -p "$dest"
	local deb
	for deb in "$debs"/*.deb; do
		dpkg-deb -x "$deb" "$dest"
	done
	rm -rf "$debs"
}

# loader_in ROOT prints the unpacked loader's path inside ROOT: libc6's own file, not one
# of the absolute symlinks the packages carry back to the machine's /lib64.
loader_in() {
	local cand
	for cand in usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 \
		usr/lib64/ld-linux-x86-64.so.2 lib64/ld-linux-x86-64.so.2; do
		if [[ -f "$1/$cand" && ! -L "$1/$cand" ]]; then
			echo "$cand"
			return 0
		fi
	done
	return 1
}

# patchelf runs Debian's patchelf, unpacked once from the machine's own suite into
# .deps/patchelf/root (its libraries, libc6, libgcc-s1 and libstdc++6, are the machine's:
# apt itself needs them).
patchelf() {
	local bin="$deps/patchelf/root/usr/bin/patchelf"
	if ! "$bin" --version >/dev/null 2>&1; then
		local own
		own=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
		[[ -n "$own" ]] || own=bookworm
		fetch "$own" "$deps/patchelf/root" patchelf
		"$bin" --version >/dev/null 2>&1 || die "the unpacked patchelf does not run: $bin --version failed"
	fi
	"$bin" "$@"
}

tmp_root="$base/root.tmp"
fetch "$suite" "$tmp_root" "${packages[@]}"

if [[ "$version" == bwrap ]]; then
	# bwrap links only the machine's own libraries (libc6, libcap2, libselinux1)
	step="installing bubblewrap"
	[[ -x "$tmp_root/usr/bin/bwrap" ]] || die "the unpacked bubblewrap has no usr/bin/bwrap"
	rm -rf "$base/root"
	mv "$tmp_root" "$base/root"
	mkdir -p "$deps/bin"
	ln -sfn "$base/root/usr/bin/bwrap" "$wrapper"
	v=$(installed_version) || die "$wrapper --version failed"
	echo "$name: $v installed at .deps/bin/bwrap"
	exit 0
fi

if [[ "$version" == strace ]]; then
	# strace links libunwind (unpacked beside it: found through its rpath) and the
	# machine's own libc and liblzma; no LD_LIBRARY_PATH, which the traced programs
	# would inherit
	step="installing strace"
	[[ -x "$tmp_root/usr/bin/strace" ]] || die "the unpacked strace has no usr/bin/strace"
	rm -rf "$base/root"
	mv "$tmp_root" "$base/root"
	patchelf --force-rpath --set-rpath '$ORIGIN/../lib/x86_64-linux-gnu' "$base/root/usr/bin/strace"
	mkdir -p "$deps/bin"
	ln -sfn "$base/root/usr/bin/strace" "$wrapper"
	v=$(installed_version) || die "$wrapper -V failed"
	echo "$name: $v installed at .deps/bin/strace"
	exit 0
fi

step="checking the unpacked tree"
loader=$(loader_in "$tmp_root") || die "no ld-linux-x86-64.so.2 regular file in the unpacked libc6"
[[ -f "$tmp_root/usr/bin/nvim" ]] || die "the unpacked neovim has no usr/bin/nvim"
[[ -d "$tmp_root/usr/share/nvim/runtime" ]] || die "the unpacked neovim-runtime has no usr/share/nvim/runtime"

# Only folders libraries are found in by soname, relative to usr/bin/nvim ($ORIGIN).
rpath=""
for d in usr/lib/x86_64-linux-gnu lib/x86_64-linux-gnu; do
	if [[ -d "$tmp_root/$d" && ! -L "$tmp_root/$d" ]] && compgen -G "$tmp_root/$d/*.so*" >/dev/null; then
		rpath+="${rpath:+:}\$ORIGIN/$(realpath -m --relative-to="$tmp_root/usr/bin" "$tmp_root/$d")"
	fi
done
[[ -n "$rpath" ]] || die "no shared-library folder in the unpacked packages"

step="installing the unpacked tree"
rm -rf "$base/root"
mv "$tmp_root" "$base/root"
root="$base/root"

# The interpreter must be an absolute path (the kernel reads it), so the tree belongs to
# this checkout; a moved checkout fails the --version check above and is unpacked anew.
# --force-rpath writes DT_RPATH, which (unlike DT_RUNPATH) also finds the libraries'
# own dependencies.
step="setting nvim's interpreter and rpath (patchelf)"
patchelf --set-interpreter "$root/$loader" --force-rpath --set-rpath "$rpath" "$root/usr/bin/nvim"

# shq prints its argument single-quoted for sh.
shq() {
	local s=${1//\'/\'\\\'\'}
	printf "'%s'" "$s"
}

step="writing the wrapper"
mkdir -p "$deps/bin"
libdir="$root/usr/lib/nvim"
[[ "$libdir" != *"]==]"* ]] || die "the checkout's path contains ]==], which the wrapper cannot quote"
{
	echo '#!/bin/sh'
	echo "# Neovim $version unpacked from Debian $suite by scripts/install-nvim.sh $version."
	echo "# nvim's interpreter and rpath point into the unpacked tree (patchelf); no LD_LIBRARY_PATH."
	echo "root=$(shq "$root")"
	echo 'VIMRUNTIME="$root/usr/share/nvim/runtime"'
	echo 'export VIMRUNTIME'
	if [[ -d "$root/usr/lib/nvim" ]]; then
		echo "# Debian keeps the tree-sitter parsers in usr/lib/nvim: it must be on 'runtimepath' (nvim"
		echo "# adds it itself unless the machine has a /usr/lib/nvim of its own)."
		echo "exec \"\$root/usr/bin/nvim\" --cmd $(shq "lua local d = [==[$libdir]==]; if not vim.tbl_contains(vim.opt.rtp:get(), d) then vim.opt.rtp:append(d) end") \"\$@\""
	else
		echo 'exec "$root/usr/bin/nvim" "$@"'
	fi
} >"$wrapper.tmp"
chmod 755 "$wrapper.tmp"
mv "$wrapper.tmp" "$wrapper"

step="checking the installed nvim"
v=$(installed_version) || die "$wrapper --version failed"
[[ "$v" == "NVIM v$version."* ]] || die "$wrapper reports '$v', want NVIM v$version.x"
echo "$name: $v installed at .deps/bin/nvim-$version"

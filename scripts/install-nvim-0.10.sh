#!/usr/bin/env bash
# install-nvim-0.10.sh — unpack Neovim 0.10.x from Debian trixie's packages into
# <repo>/.deps/nvim-0.10/ and write the wrapper <repo>/.deps/bin/nvim-0.10.
#
# Debian bookworm ships Neovim 0.7.2; the tests also need 0.10. Nothing on the machine
# changes: the machine's libc stays, apt's own lists, cache, sources and dpkg database are
# never written. apt runs with a private configuration under .deps/nvim-0.10/apt/:
#   - a private trixie .sources file whose mirror URI is read at run time from the
#     machine's /etc/apt/sources.list.d/*.sources (no mirror host is written in this repo;
#     VIBING_DEBIAN_MIRROR=<uri> overrides it);
#   - private package lists, package cache and download folder; no locking.
# Signatures are checked, never skipped: the private source is Signed-By the machine's
# /usr/share/keyrings/debian-archive-keyring.gpg. Bookworm's debian-archive-keyring
# (2023.3+deb12u1 and later) already carries trixie's archive and release keys; the script
# checks that and, if they are missing, stops and says to update that package from
# bookworm itself (it never falls back to an unsigned repository).
#
# The .debs are extracted with `dpkg -x` into .deps/nvim-0.10/root, and the wrapper runs
# the unpacked nvim through the unpacked loader:
#   <root>/…/ld-linux-x86-64.so.2 --library-path <unpacked lib dirs> <root>/usr/bin/nvim
# with VIMRUNTIME exported. It does NOT export LD_LIBRARY_PATH, so processes nvim starts
# (jobstart, :terminal, system()) run against the machine's own libraries.
# Known limit of the loader approach: v:progpath names the loader, not nvim.
#
# Idempotent: does nothing when .deps/bin/nvim-0.10 --version already reports 0.10.
# Usage: scripts/install-nvim-0.10.sh        (as root or as a normal user; no prompts)
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
deps="$repo/.deps"
base="$deps/nvim-0.10"
wrapper="$deps/bin/nvim-0.10"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
packages=(neovim neovim-runtime libc6 libgcc-s1 libluajit-5.1-2 libluajit-5.1-common
	libmsgpack-c2 libtree-sitter0.22 libunibilium4 libuv1t64 libvterm0 lua-lpeg lua-luv)

step="starting"
die() {
	echo "install-nvim-0.10: $*" >&2
	exit 1
}
trap 'echo "install-nvim-0.10: failed while ${step} (line ${LINENO})" >&2' ERR

installed_version() {
	[[ -x "$wrapper" ]] || return 1
	"$wrapper" --version 2>/dev/null | head -n 1
}

if v=$(installed_version) && [[ "$v" == "NVIM v0.10."* ]]; then
	echo "install-nvim-0.10: $v already at .deps/bin/nvim-0.10"
	exit 0
fi

for cmd in apt-get dpkg; do
	command -v "$cmd" >/dev/null || die "$cmd is required (this script expects Debian)"
done
[[ "$(dpkg --print-architecture)" == amd64 ]] || die "only amd64 is supported"

# debian_mirror prints the first URI of the machine's main Debian entry (deb822 format):
# an http(s) URI whose path ends in /debian — not debian-security, not a third-party source.
debian_mirror() {
	local f
	for f in /etc/apt/sources.list.d/*.sources; do
		[[ -r "$f" ]] || continue
		awk '
			/^[[:space:]]*#/ { next }
			/^[[:space:]]*$/ { uris = ""; next }
			tolower($1) == "uris:" {
				for (i = 2; i <= NF; i++) if ($i ~ /^https?:\/\/[^ ]*\/debian\/?$/) { sub(/\/$/, "", $i); print $i; exit }
			}
		' "$f"
	done | head -n 1
}

step="finding the Debian mirror"
mirror=${VIBING_DEBIAN_MIRROR:-$(debian_mirror)}
[[ -n "$mirror" ]] || die "no Debian mirror found: no URIs line ending in /debian in /etc/apt/sources.list.d/*.sources (set VIBING_DEBIAN_MIRROR)"

step="checking the archive keyring"
[[ -r "$keyring" ]] || die "$keyring is missing: install the debian-archive-keyring package"
# A friendlier early message than apt's NO_PUBKEY; apt still verifies the signature itself.
if command -v gpg >/dev/null; then
	gnupg_home=$(mktemp -d)
	keys=$(GNUPGHOME=$gnupg_home gpg --batch --with-colons --show-keys "$keyring" 2>/dev/null || true)
	rm -rf "$gnupg_home"
	[[ "$keys" == *"(13/trixie)"* ]] ||
		die "$keyring has no trixie key: update debian-archive-keyring from bookworm (2023.3+deb12u1 or later)"
fi

step="writing the private apt configuration"
apt_dir="$base/apt"
mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/debs"
sources="$apt_dir/trixie.sources"
cat >"$sources" <<EOF
Types: deb
URIs: $mirror
Suites: trixie
Components: main
Architectures: amd64
Signed-By: $keyring
EOF

apt_opts=(
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
	apt_opts+=(-o APT::Sandbox::User=root)
fi

step="updating the private trixie package lists (apt-get update)"
apt-get -qq "${apt_opts[@]}" -o APT::Update::Error-Mode=any update >/dev/null
compgen -G "$apt_dir/lists/*_dists_trixie_InRelease" >/dev/null ||
	die "apt-get update fetched no signed trixie InRelease from $mirror"

step="downloading ${packages[*]}"
rm -f "$apt_dir/debs"/*.deb
(cd "$apt_dir/debs" && apt-get -qq "${apt_opts[@]}" download "${packages[@]}" >/dev/null)
for p in "${packages[@]}"; do
	compgen -G "$apt_dir/debs/${p}_*.deb" >/dev/null || die "apt-get download did not fetch $p"
done

step="unpacking the packages (dpkg -x)"
tmp_root="$base/root.tmp"
rm -rf "$tmp_root"
mkdir -p "$tmp_root"
for deb in "$apt_dir/debs"/*.deb; do
	dpkg -x "$deb" "$tmp_root"
done

# The loader must be trixie's own file, not a symlink that leads back to the machine's
# /lib64/ld-linux-x86-64.so.2 (the packages carry absolute symlinks).
step="locating the unpacked loader and libraries"
loader=""
for cand in usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 \
	usr/lib64/ld-linux-x86-64.so.2 lib64/ld-linux-x86-64.so.2; do
	if [[ -f "$tmp_root/$cand" && ! -L "$tmp_root/$cand" ]]; then
		loader=$cand
		break
	fi
done
[[ -n "$loader" ]] || die "no ld-linux-x86-64.so.2 regular file in the unpacked libc6"
[[ -f "$tmp_root/usr/bin/nvim" ]] || die "the unpacked neovim has no usr/bin/nvim"
[[ -d "$tmp_root/usr/share/nvim/runtime" ]] || die "the unpacked neovim-runtime has no usr/share/nvim/runtime"

# Only folders libraries are found in by soname; lpeg and luv are linked into nvim.
libdirs=()
for d in usr/lib/x86_64-linux-gnu lib/x86_64-linux-gnu; do
	if [[ -d "$tmp_root/$d" && ! -L "$tmp_root/$d" ]] &&
		compgen -G "$tmp_root/$d/*.so*" >/dev/null; then
		libdirs+=("$d")
	fi
done
[[ ${#libdirs[@]} -gt 0 ]] || die "no shared-library folder in the unpacked packages"

# nvim finds its treesitter parsers in <prefix>/lib/nvim, the prefix being two levels above
# the running executable, which here is the loader (usr/lib/x86_64-linux-gnu/ld…
# gives usr/lib/lib/nvim). Point that folder at the packaged usr/lib/nvim.
prefix=$(dirname "$(dirname "$loader")")
if [[ -d "$tmp_root/usr/lib/nvim" && ! -e "$tmp_root/$prefix/lib/nvim" ]]; then
	mkdir -p "$tmp_root/$prefix/lib"
	ln -s "$(realpath -m --relative-to="$tmp_root/$prefix/lib" "$tmp_root/usr/lib/nvim")" "$tmp_root/$prefix/lib/nvim"
fi

step="installing the unpacked tree"
rm -rf "$base/root"
mv "$tmp_root" "$base/root"

step="writing the wrapper"
mkdir -p "$deps/bin"
libpath=""
for d in "${libdirs[@]}"; do
	libpath+="${libpath:+:}\$root/$d"
done
cat >"$wrapper.tmp" <<EOF
#!/bin/sh
# Neovim 0.10 unpacked from Debian trixie by scripts/install-nvim-0.10.sh.
# Runs through trixie's loader with --library-path instead of LD_LIBRARY_PATH, so that
# processes nvim starts use the machine's own libraries.
self=\$(readlink -f "\$0")
root=\$(dirname "\$(dirname "\$self")")/nvim-0.10/root
VIMRUNTIME="\$root/usr/share/nvim/runtime"
export VIMRUNTIME
exec "\$root/$loader" --library-path "$libpath" "\$root/usr/bin/nvim" "\$@"
EOF
chmod 755 "$wrapper.tmp"
mv "$wrapper.tmp" "$wrapper"

step="checking the installed nvim"
v=$(installed_version) || die "$wrapper --version failed"
[[ "$v" == "NVIM v0.10."* ]] || die "$wrapper reports '$v', want NVIM v0.10.x"
echo "install-nvim-0.10: $v installed at .deps/bin/nvim-0.10"

// Package e2e drives a real embedded Neovim (`nvim --embed`, the binary named
// by $VIBING_TEST_NVIM, default nvim) over msgpack-RPC with go-client: the
// plugin on the runtimepath, isolated XDG folders, the real vibing-agent
// built from this checkout. The tests type slash commands, press <CR>, and
// check both the buffer and the chat file on disk.
package e2e

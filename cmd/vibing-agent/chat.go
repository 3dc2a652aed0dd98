package main

import (
	"vibing/internal/config"
	"vibing/internal/frontmatter"
	"vibing/internal/policy"
	"vibing/internal/session"
)

// chatEngine is a chat's settings compiled into a decision engine.
type chatEngine struct {
	cfg      *config.Config
	path     string // absolute chat path
	settings frontmatter.Settings
	engine   *session.Engine
	loadErr  error // invalid rules or preset: the engine fails closed on them
	files    []policy.File
	root     string
}

// openChat reads the config and loads the chat through policy.Open, the
// loader the editor's RPC host uses too (same project root, working
// directory and guarded paths). cwd is the --cwd flag ("" = the chat's
// working_dir, relative to its project root, else the current directory).
// A chat that cannot be read or parsed is an error; settings the engine
// cannot use come back in loadErr with an engine that fails closed.
func openChat(chat, cwd, configPath string, opts session.Options) (*chatEngine, error) {
	learnTools()
	cfg, err := loadConfig(configPath)
	if err != nil {
		return nil, err
	}
	ch, err := policy.Open(policy.Request{Config: cfg, ConfigFile: configPath, ChatFile: chat, Cwd: cwd, Options: opts})
	if err != nil {
		return nil, err
	}
	return &chatEngine{cfg: cfg, path: ch.Path, settings: ch.Settings, engine: ch.Engine, loadErr: ch.LoadErr, files: ch.Files, root: ch.Root}, nil
}

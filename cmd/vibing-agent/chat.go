package main

import (
	"fmt"
	"path/filepath"

	"vibing/internal/config"
	"vibing/internal/frontmatter"
	"vibing/internal/session"
)

// chatEngine is a chat's settings compiled into a decision engine.
type chatEngine struct {
	cfg      *config.Config
	path     string // absolute chat path
	settings frontmatter.Settings
	engine   *session.Engine
	loadErr  error // invalid rules or preset: the engine fails closed on them
}

// openChat reads the chat and the config and compiles the engine. A chat
// that cannot be read or parsed is an error; settings the engine cannot use
// come back in loadErr with an engine that fails closed.
func openChat(chat, cwd, configPath string, opts session.Options) (*chatEngine, error) {
	cfg, err := loadConfig(configPath)
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(chat)
	if err != nil {
		return nil, fmt.Errorf("chat %s: %w", chat, err)
	}
	doc, err := frontmatter.ReadFile(abs)
	if err != nil {
		return nil, fmt.Errorf("chat %s: %w", chat, err)
	}
	s, err := doc.Settings()
	if err != nil {
		return nil, fmt.Errorf("chat %s: %w", chat, err)
	}
	dir, err := workDir(cwd, s.WorkingDir)
	if err != nil {
		return nil, err
	}
	opts.Cwd = dir
	opts.ChatFile = abs
	if configPath != "" {
		opts.ConfigFile, _ = filepath.Abs(configPath)
	}
	eng, engErr := session.New(cfg, s, opts)
	return &chatEngine{cfg: cfg, path: abs, settings: s, engine: eng, loadErr: engErr}, nil
}

package main

import (
	"fmt"
	"os"
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

// workDir picks the working directory: --cwd, else the chat's working_dir
// (relative to the current directory, where the editor starts us: the
// project root), else the current directory.
func workDir(flagDir, chatDir string) (string, error) {
	d := flagDir
	if d == "" {
		d = chatDir
	}
	if d == "" {
		d = "."
	}
	abs, err := filepath.Abs(d)
	if err != nil {
		return "", err
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("working directory %s is not a folder", abs)
	}
	return abs, nil
}

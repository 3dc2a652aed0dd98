package rpc

import (
	"context"
	"path/filepath"

	"vibing/internal/changes"
	"vibing/internal/policy"
)

// forgetChanges removes the pre-turn copies kept for a chat that was
// deleted: the folder of its turns under its project's .vibing/turns/.
//
// Params: chat (its path), cwd (where the editor stands, as for a run).
// Result: ok, or ok false and error.
func (h *Host) forgetChanges(_ context.Context, p params) (any, error) {
	chat, err := p.str("chat", true)
	if err != nil {
		return nil, err
	}
	cwd, err := p.str("cwd", false)
	if err != nil {
		return nil, err
	}
	if !filepath.IsAbs(chat) {
		chat = filepath.Join(cwd, chat)
	}
	root := policy.ProjectRoot(chat, cwd)
	if err := changes.ForgetChat(root, chat); err != nil {
		return failed(err.Error()), nil
	}
	return map[string]any{"ok": true, "dir": changes.ChatDir(root, chat)}, nil
}

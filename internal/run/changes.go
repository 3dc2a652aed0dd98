package run

// What a turn changed: before an allowed call may write a file, the file's
// pre-turn content is kept (internal/changes); the turn's end lists the files
// whose content differs in one files_changed event.

import (
	"fmt"

	"vibing/internal/command"
	"vibing/internal/session"
)

// maxBashFiles bounds the files one Bash line is watched for.
const maxBashFiles = 64

// fileTools are the tools that write the file their input names.
var fileTools = map[string]bool{"Edit": true, "Write": true, "MultiEdit": true, "NotebookEdit": true}

// beginChanges starts recording the turn s.turn.
func (s *state) beginChanges() {
	s.changed = s.r.Changes.Begin(s.turn)
	s.bashKept = map[string][]string{}
}

// keepFiles keeps the pre-turn content of the files the allowed call may
// write (the person's edited input when v carries one). An error means a
// copy could not be kept: the caller refuses the call.
func (s *state) keepFiles(p *Permission, v Verdict) error {
	if s.changed == nil || (!fileTools[p.Tool] && p.Tool != "Bash") {
		return nil
	}
	input := p.Input
	if v.UpdatedInput != nil {
		input = v.UpdatedInput
	}
	var kept []string
	for _, path := range s.writes(p, input) {
		ok, err := s.changed.Keep(path, p.Tool, s.mayRead(path, p.Cwd))
		if err != nil {
			return fmt.Errorf("vibing could not keep a copy of %s before %s changes it, so the call is refused: %w", path, p.Tool, err)
		}
		if ok && p.Tool == "Bash" {
			kept = append(kept, path)
		}
	}
	if len(kept) > 0 && p.ToolUseID != "" {
		s.bashKept[p.ToolUseID] = append(s.bashKept[p.ToolUseID], kept...)
	}
	return nil
}

// mayRead reports whether the pipeline lets the agent Read path without
// asking: only then is a copy kept, since the agent could read the copy
// under .vibing/turns/ where its rules on the file do not reach.
func (s *state) mayRead(path, cwd string) bool {
	d := s.pipeline(&Permission{Tool: "Read", Input: map[string]any{"file_path": path}, Cwd: cwd})
	return d.Decision == session.Allow
}

// writes lists the files a call writes: the path of a file tool, or the
// files a Bash line is seen to write, move or delete (named ones only, not
// "something inside a folder").
func (s *state) writes(p *Permission, input map[string]any) []string {
	env := s.env()
	if p.Cwd != "" {
		env.Shell = []string{p.Cwd}
	}
	c := command.PrepareUnresolved(p.Tool, input, env)
	if p.Tool != "Bash" {
		if c.Path == nil {
			return nil
		}
		return []string{c.Path.Abs}
	}
	var out []string
	seen := map[string]bool{}
	for i := range c.Modifies {
		m := &c.Modifies[i]
		if m.Inside() || seen[m.Abs] || m.Abs == "" {
			continue
		}
		seen[m.Abs] = true
		out = append(out, m.Abs)
		if len(out) == maxBashFiles {
			break
		}
	}
	return out
}

// bashResult: the Bash call id ended; files it kept that did not change are
// not its changes.
func (s *state) bashResult(id string) {
	if paths, ok := s.bashKept[id]; ok {
		delete(s.bashKept, id)
		s.changed.Settle(paths)
	}
}

// reportChanges ends the turn's record: one files_changed event when a
// file's content differs from its pre-turn copy.
func (s *state) reportChanges() {
	t := s.changed
	s.changed, s.bashKept = nil, nil
	if t == nil {
		return
	}
	files, err := t.Finish()
	if err != nil {
		s.notice("what this turn changed could not all be recorded (%v); reverting a file will ask first", err)
	}
	if len(files) > 0 {
		_ = s.w.Write(Output{Type: "files_changed", Turn: s.turn, Dir: t.Dir(), Files: files})
	}
}

// noteVanishing says, once per file and run, that an allowed write into the
// sandbox's private /tmp does not last: the file is gone when the agent's
// process ends and never reaches the person's /tmp.
func (s *state) noteVanishing(p *Permission, v Verdict) {
	if s.r.Vanishes == nil || (!fileTools[p.Tool] && p.Tool != "Bash") {
		return
	}
	input := p.Input
	if v.UpdatedInput != nil {
		input = v.UpdatedInput
	}
	env := s.env()
	if p.Cwd != "" {
		env.Shell = []string{p.Cwd}
	}
	c := command.PrepareUnresolved(p.Tool, input, env)
	var paths []string
	if p.Tool != "Bash" && c.Path != nil {
		paths = append(paths, c.Path.Abs)
	}
	for _, w := range [][]command.Path{c.Modifies, c.Writes} {
		for i := range w {
			paths = append(paths, w[i].Abs)
		}
	}
	for _, path := range paths {
		if path == "" || s.vanishes[path] || !s.r.Vanishes(path) {
			continue
		}
		if s.vanishes == nil {
			s.vanishes = map[string]bool{}
		}
		s.vanishes[path] = true
		s.notice("%s writes %s, in the sandbox's private /tmp: the file lasts only while the agent's process does and never appears in your /tmp (write it inside the project to keep it)", Describe(p.Tool, input), path)
	}
}

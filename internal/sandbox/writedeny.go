package sandbox

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"vibing/internal/command"
	"vibing/internal/matcher"
	"vibing/internal/session"
)

// writeTools are the tools whose deny rules name files that must not
// change.
var writeTools = map[string]bool{"Write": true, "Edit": true, "MultiEdit": true, "NotebookEdit": true}

// writeDenied makes read-only what a Write or Edit deny rule names inside
// the writable folders: each existing file or folder it names (found by a
// bounded walk, confirmed by the slow twin), and the one file a literal
// rule names when it does not exist yet (held by a placeholder). What the
// kernel cannot hold is said in Unexpanded: new files a pattern would
// match, the whole tool refused, a path that holds a folder the CLI needs.
func (d *deriver) writeDenied() {
	x := d.in.Engine.Explain()
	walked := map[string]bool{}
	for _, lr := range x.Layers {
		if lr.List != "deny" {
			continue
		}
		r, err := matcher.ParseReferenceRule(lr.Rule)
		if err != nil || !writeTools[r.Tool] {
			continue
		}
		switch {
		case r.IsRegex():
			d.note(fmt.Sprintf("%s (%s) is a regex rule: the files it names are not looked for, so none is made read-only", lr.Rule, lr.Source))
			continue
		case !r.HasArg():
			d.note(fmt.Sprintf("%s (%s) refuses the %s tool as a whole: no folder is made read-only for it (scripts can still write)", lr.Rule, lr.Source, r.Tool))
			continue
		}
		root, anyDepth := r.FileRoot(d.env.Cwd, d.home)
		roots := []string{root}
		if anyDepth {
			roots = []string{d.in.Root, d.env.Cwd, d.home}
		}
		whole, held := false, true
		for _, base := range roots {
			if base == "" || walked[lr.Rule+"\x00"+base] {
				continue
			}
			walked[lr.Rule+"\x00"+base] = true
			if !d.touchesWritable(realPath(base)) {
				continue // read-only in the sandbox anyway
			}
			if d.wholeFolder(r, lr, base, anyDepth) {
				whole = true
				continue
			}
			if !d.walkWriteRule(r, lr, base) {
				held = false
			}
		}
		if pattern(r.Arg) && !whole {
			held = false
			d.note(fmt.Sprintf("%s (%s): the files it names that exist are read-only; a new file its pattern matches can still be made by a script", lr.Rule, lr.Source))
		}
		if !d.missingLiteral(r, lr, root, anyDepth) {
			held = false
		}
		if held {
			d.hold(lr.Rule)
		}
	}
}

// wholeFolder holds a folder whose every file a rule names (dir/**): new
// files in it are refused too. It reports whether it did.
func (d *deriver) wholeFolder(r *matcher.Rule, lr session.LayerRule, root string, anyDepth bool) bool {
	prefix, ok := strings.CutSuffix(r.Arg, "/**")
	if !ok || anyDepth || pattern(prefix) {
		return false
	}
	fi, err := os.Stat(root)
	if err != nil || !fi.IsDir() || !d.writeRefused(filepath.Join(root, "vibing-new-file")) {
		return false
	}
	return d.holdReadOnly(root, lr, false)
}

// touchesWritable reports whether p lies in a writable folder or holds one.
func (d *deriver) touchesWritable(p string) bool {
	for _, w := range d.v.Writable {
		if command.Within(p, w.Path) || command.Within(w.Path, p) {
			return true
		}
	}
	return false
}

// walkWriteRule makes read-only what rule r names below base, and reports
// whether it held all of it.
func (d *deriver) walkWriteRule(r *matcher.Rule, lr session.LayerRule, base string) bool {
	if _, err := os.Lstat(base); err != nil {
		return true
	}
	all := true
	n := 0
	stopped := false
	_ = filepath.WalkDir(base, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if skipWalk[p] {
			return filepath.SkipDir
		}
		if n++; n > d.max {
			stopped = true
			return filepath.SkipAll
		}
		if e.IsDir() && e.Name() == ".git" {
			return filepath.SkipDir
		}
		if !r.NamesFile(p, d.env.Cwd, d.home) || !d.writeRefused(p) {
			return nil
		}
		if !d.holdReadOnly(p, lr, false) {
			all = false
		} else if e.IsDir() {
			return filepath.SkipDir
		}
		return nil
	})
	if stopped {
		d.note(fmt.Sprintf("%s (%s): the look below %s stopped after %d entries; files further down stay writable to scripts (the engine still refuses the %s tool on them)",
			lr.Rule, lr.Source, base, d.max, r.Tool))
	}
	return all && !stopped
}

// writeRefused asks the slow twin whether a Write to p is refused by a
// deny rule.
func (d *deriver) writeRefused(p string) bool {
	dec := d.twin.Decide("Write", map[string]any{"file_path": p, "content": ""})
	return dec.Decision == session.Deny && dec.Rule != ""
}

// missingLiteral holds the one file a rule without a pattern names when it
// does not exist yet: a placeholder keeps it from being made. It reports
// false when the rule names files that can still be made.
func (d *deriver) missingLiteral(r *matcher.Rule, lr session.LayerRule, root string, anyDepth bool) bool {
	if anyDepth && !pattern(r.Arg) {
		d.note(fmt.Sprintf("%s (%s) names %s at any depth: the ones that exist are read-only; a new one can still be made by a script", lr.Rule, lr.Source, filepath.Base(r.Arg)))
		return false
	}
	if pattern(r.Arg) || root == "" {
		return !pattern(r.Arg) && root != ""
	}
	p := filepath.Join(root, filepath.Base(strings.TrimSuffix(r.Arg, "/")))
	if _, err := os.Lstat(p); err == nil || !r.NamesFile(p, d.env.Cwd, d.home) || !d.writeRefused(p) {
		return true
	}
	if !d.inWritable(realPath(p)) {
		return true
	}
	return d.holdReadOnly(p, lr, true)
}

// holdReadOnly lists p as read-only for a Write deny rule, unless it holds
// what the CLI needs; it reports whether it did.
func (d *deriver) holdReadOnly(p string, lr session.LayerRule, missing bool) bool {
	r := realPath(p)
	keeps := []struct{ path, what string }{{d.env.Cwd, "the working directory"}, {d.home, "the home folder"}}
	if d.home != "" {
		keeps = append(keeps, struct{ path, what string }{filepath.Join(d.home, ".claude"), "the claude CLI's state"})
	}
	for _, keep := range keeps {
		if keep.path != "" && command.Within(realPath(keep.path), r) {
			d.note(fmt.Sprintf("%s is not made read-only although %s (%s) names it: it holds %s", r, lr.Rule, lr.Source, keep.what))
			return false
		}
	}
	dir := false
	if fi, err := os.Stat(r); err == nil {
		dir = fi.IsDir()
	}
	before := len(d.v.ReadOnly)
	d.addRO(r, fmt.Sprintf("%s (%s)", lr.Rule, lr.Source), dir, false)
	if missing && len(d.v.ReadOnly) > before && !d.v.ReadOnly[len(d.v.ReadOnly)-1].Bound {
		d.note(fmt.Sprintf("%s (%s): %s does not exist and neither does its folder, so nothing holds it", lr.Rule, lr.Source, r))
		return false
	}
	return true
}

// pattern reports whether a rule's path holds a glob.
func pattern(arg string) bool { return strings.ContainsAny(arg, "*?[{") }

package sandbox

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"vibing/internal/command"
	"vibing/internal/matcher"
	"vibing/internal/selfexe"
	"vibing/internal/session"
)

// skipWalk are folders a walk from / never enters: they are not files.
var skipWalk = map[string]bool{"/proc": true, "/sys": true, "/dev": true, "/run": true}

// hidden lists the existing files and folders a Read deny rule names. Each
// rule's folder is walked (the project and ~ for a bare name, which counts
// at any depth), at most max entries a walk; every hit is confirmed with
// the engine's slow twin (a Read of it is denied by a rule). The twin
// matches without the engine's speed shortcuts, so a bug in one of them
// cannot leave a file readable here as well as to the engine's tools.
func (d *deriver) hidden() {
	x := d.in.Engine.Explain()
	hid := map[string]bool{}
	walked := map[string]bool{} // rule + root: a rule in two layers walks once
	for _, lr := range x.Layers {
		if lr.List != "deny" {
			continue
		}
		r, err := matcher.ParseReferenceRule(lr.Rule) // the slow twin: no shortcut of the engine's
		if err != nil {
			continue
		}
		switch {
		case r.IsRegex():
			d.note(fmt.Sprintf("%s (%s) is a regex rule: the files it names are not looked for, so none is hidden", lr.Rule, lr.Source))
			continue
		case r.Tool != "Read":
			continue
		case !r.HasArg():
			d.note(fmt.Sprintf("%s (%s) refuses the Read tool as a whole: no file is hidden for it", lr.Rule, lr.Source))
			continue
		}
		root, anyDepth := r.FileRoot(d.env.Cwd, d.home)
		roots := []string{root}
		if anyDepth {
			// a bare name is looked for where the agent works and keeps
			// things: the project and the home folder
			roots = []string{d.in.Root, d.env.Cwd, d.home}
			d.note(fmt.Sprintf("%s (%s) names %s anywhere: it is hidden in the project and the home folder; elsewhere only the engine refuses it", lr.Rule, lr.Source, filepath.Base(r.Arg)))
		}
		whole := root != "" || anyDepth
		var named []string // the files this rule hides
		for _, base := range roots {
			if base == "" || walked[lr.Rule+"\x00"+base] {
				continue
			}
			walked[lr.Rule+"\x00"+base] = true
			if !d.walkRule(r, lr, base, hid, &named) {
				whole = false
			}
		}
		if whole && (linkedElsewhere(d, lr, named) || d.inHistory(lr, named)) {
			whole = false
		}
		if whole {
			d.hold(lr.Rule)
		}
	}
}

// linkedElsewhere reports whether a file a rule hides has other hard
// links (a name the view does not hide reads it) and says so.
func linkedElsewhere(d *deriver, lr session.LayerRule, hidden []string) bool {
	for _, p := range hidden {
		fi, err := os.Stat(p)
		if err != nil || fi.IsDir() {
			continue
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Nlink > 1 {
			d.note(fmt.Sprintf("%s is hidden, but it has %d hard links: another name can read it, so the engine keeps refusing what it cannot see through for %s",
				p, st.Nlink, lr.Rule))
			return true
		}
	}
	return false
}

// inHistory reports whether git keeps one of the files a rule hides (then
// a script reads it from there) and says so.
func (d *deriver) inHistory(lr session.LayerRule, hidden []string) bool {
	if d.gitKnown == nil {
		d.gitKnown = map[string]bool{}
	}
	for _, p := range hidden {
		known, asked := d.gitKnown[p]
		if !asked {
			if d.gitChecks++; d.gitChecks > maxGitChecks {
				d.note(fmt.Sprintf("%s (%s): too many hidden files to ask git about; the engine keeps refusing what it cannot see through for it", lr.Rule, lr.Source))
				return true
			}
			known = gitKnows(p)
			d.gitKnown[p] = known
		}
		if known {
			d.note(fmt.Sprintf("%s is hidden, but git keeps it (index or history of %s): a script can read it from there, so the engine keeps refusing what it cannot see through for %s",
				p, repoOf(p), lr.Rule))
			return true
		}
	}
	return false
}

// hold lists rule as held whole by the kernel: every file it names that
// exists is hidden or read-only, and what it names cannot be made.
func (d *deriver) hold(rule string) {
	for _, h := range d.v.Held {
		if h == rule {
			return
		}
	}
	d.v.Held = append(d.v.Held, rule)
}

// walkRule hides what rule r names below base, and reports whether it
// hid all of it.
func (d *deriver) walkRule(r *matcher.Rule, lr session.LayerRule, base string, hid map[string]bool, named *[]string) bool {
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
		if !r.NamesFile(p, d.env.Cwd, d.home) {
			return nil
		}
		dec := d.twin.Decide("Read", map[string]any{"file_path": p})
		if dec.Decision != session.Deny || dec.Rule == "" {
			return nil
		}
		if !d.hide(p, lr, hid) {
			all = false
		}
		*named = append(*named, realPath(p))
		if e.IsDir() {
			return filepath.SkipDir
		}
		return nil
	})
	if stopped {
		d.note(fmt.Sprintf("%s (%s): the look below %s stopped after %d entries; files further down are not hidden (the engine still refuses the Read tool on them)",
			lr.Rule, lr.Source, base, d.max))
	}
	return all && !stopped
}

// hide lists p (resolved) as hidden, unless it holds what the CLI needs,
// and reports whether p is hidden (or has nothing to read). Whether it is a
// folder is asked of what p resolves to, not of p (a link).
func (d *deriver) hide(p string, lr session.LayerRule, hid map[string]bool) bool {
	r := realPath(p)
	if hid[r] {
		return true
	}
	hid[r] = true
	fi, err := os.Stat(r)
	if err != nil {
		return true // a dangling link: nothing to read
	}
	dir := fi.IsDir()
	keeps := []struct{ path, what string }{{d.env.Cwd, "the working directory"}, {d.in.Claude, "the claude CLI"}, {d.home, "the home folder"}}
	for _, b := range selfexe.Pair(d.in.Binary) {
		keeps = append(keeps, struct{ path, what string }{b, "vibing-agent"})
	}
	for _, keep := range keeps {
		if keep.path != "" && command.Within(realPath(keep.path), r) {
			d.note(fmt.Sprintf("%s is not hidden although %s (%s) names it: it holds %s", r, lr.Rule, lr.Source, keep.what))
			return false
		}
	}
	for _, w := range d.v.Writable {
		if command.Within(w.Path, r) {
			d.note(fmt.Sprintf("%s is not hidden although %s (%s) names it: it holds the writable folder %s", r, lr.Rule, lr.Source, w.Path))
			return false
		}
	}
	d.v.Hidden = append(d.v.Hidden, Entry{Path: r, Why: fmt.Sprintf("%s (%s)", lr.Rule, lr.Source), Dir: dir, Bound: true})
	return true
}

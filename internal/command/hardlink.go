package command

import (
	"os"
	"path/filepath"
	"syscall"
)

// A hard link is the file itself under a second name: once `ln .env
// notes.txt` has been run (earlier, where the engine did not see it),
// `cat notes.txt` reads .env and `Edit notes.txt` changes it. Names alone
// cannot show that, so deny and ask file rules whose pattern is a literal
// path (Read(.env), Read(secrets/key.pem), Read(~/.ssh/id_rsa)) also
// compare a path they do not match by name with the file the rule names,
// by device and inode, when the path is a regular file with more than one
// link. A rule written with no "/" (Read(.env)) names that name at any
// depth; its files are looked for in the working directory and in the
// candidate's own folder (and the folder it resolves into), not at every
// depth. Rules with glob characters, and folders a literal rule names (the
// files below them), are not followed through hard links. An allow rule
// never matches through a hard link: it matches the names it spells.
//
// The cost stays small: nothing is looked up for a rule with glob
// characters; a candidate is stat'ed once per call (the result kept on the
// Call), and the files a rule names only when the candidate has more than
// one link.

// fileStat is what a stat of one path says, as far as hard links go.
type fileStat struct {
	Regular    bool // a regular file
	Nlink      uint64
	Dev, Inode uint64
}

// LinkedBy reports whether p is a hard link to a file the literal pattern
// pt (one without glob characters: Lit is all of it) names, other than p
// itself; a folder p writes into is not one.
func (pt *PathPattern) LinkedBy(p *Path, c *Call) bool {
	if p.Inside() || p.Real == "" {
		return false
	}
	cand := c.statOf(p)
	if !cand.Regular || cand.Nlink < 2 {
		return false
	}
	for _, t := range pt.linkTargets(p, c) {
		if t == p.Real || t == p.Abs {
			continue
		}
		if ts := c.statFile(t); ts.Regular && ts.Dev == cand.Dev && ts.Inode == cand.Inode {
			return true
		}
	}
	return false
}

// linkTargets are the files the literal pattern pt names, for the
// comparison with a hard-linked candidate p.
func (pt *PathPattern) linkTargets(p *Path, c *Call) []string {
	switch {
	case pt.AnyBase:
		out := []string{joinDir(c.Env.Cwd, pt.Lit), joinDir(filepath.Dir(p.Abs), pt.Lit)}
		if d := filepath.Dir(p.Real); d != filepath.Dir(p.Abs) {
			out = append(out, joinDir(d, pt.Lit))
		}
		return out
	case pt.Anchor == AnchorCwd:
		return []string{joinDir(c.Env.Cwd, pt.Lit)}
	case pt.Anchor == AnchorHome:
		if c.Env.Home == "" {
			return nil
		}
		return []string{joinDir(c.Env.Home, pt.Lit)}
	}
	return []string{pt.Lit}
}

// statFile stats name (following symlinks) once per call.
func (c *Call) statFile(name string) fileStat {
	if v, ok := c.stats.Load(name); ok {
		return v.(fileStat)
	}
	var out fileStat
	if fi, err := os.Stat(name); err == nil {
		out = fileStatOf(fi)
	}
	c.stats.Store(name, out)
	return out
}

// statOf is statFile of p.Real, or what resolving p found there when that
// looked it up already.
func (c *Call) statOf(p *Path) fileStat {
	if p.looked != nil {
		return *p.looked
	}
	return c.statFile(p.Real)
}

// fileStatOf is what fi says as far as hard links go.
func fileStatOf(fi os.FileInfo) fileStat {
	if !fi.Mode().IsRegular() {
		return fileStat{}
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return fileStat{Regular: true, Nlink: uint64(st.Nlink), Dev: uint64(st.Dev), Inode: uint64(st.Ino)}
	}
	return fileStat{}
}

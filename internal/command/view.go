package command

import (
	"os"
	"path"
)

// Read-only views of a prepared Bash call for approval previews
// (internal/preview): what each simple command runs and changes, from the one
// walk Prepare made, so a preview never parses the line a second time.

// Parent returns the index in Call.Commands of the command that runs this
// one (sh -c, eval, a $(…) in its words, find -exec), or -1 for a command of
// the line itself.
func (c *Command) Parent() int { return c.parent }

// Wrappers returns the wrapper commands seen through (sudo, env, nice, …).
func (c *Command) Wrappers() []string { return c.More().Wrappers }

// Unseen returns why the engine cannot see what this command runs, or "".
func (c *Command) Unseen() string { return c.unseen }

// Redirects returns the files the command's output redirections write
// (> x, >> x, &> x), as written.
func (c *Command) Redirects() []string { return c.More().Outs }

// CommandWrites says which files the command at index i of Call.Commands
// writes, moves or deletes through its arguments, as written: whole paths,
// folders below which it writes names not known in advance (cp -r x dir/,
// git clean, find -delete), and whether those inside writes remove entries.
// A destination folder is looked for from the working directory.
func (c *Call) CommandWrites(i int) (paths, inside []string, removes bool) {
	if i < 0 || i >= len(c.Commands) || len(c.Commands[i].Args) == 0 {
		return nil, nil, false
	}
	args := c.Commands[i].Args
	isDir := func(p string) bool {
		fi, err := os.Stat(ResolvePath(p, c.Env).Abs)
		return err == nil && fi.IsDir()
	}
	fw := writesOf(path.Base(args[0]), args[1:], isDir)
	inside = fw.inside
	for _, nd := range fw.named {
		inside = append(inside, nd.dir)
	}
	for _, ex := range fw.extracts {
		if ex.Dir != "" {
			inside = append(inside, ex.Dir) // unpacks or patches names inside it
		}
	}
	return fw.paths, inside, fw.removes
}

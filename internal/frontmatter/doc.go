// Package frontmatter reads and edits the YAML frontmatter of a chat file.
//
// Reading decodes the frontmatter with gopkg.in/yaml.v3 into a node tree and
// checks every settings key's type: a malformed frontmatter is an error, never
// "no rules".
//
// Editing never re-serialises the YAML. Each edit splices only the lines of
// the edited key (yaml.v3 nodes give their line numbers): adding to a block
// list inserts one "- item" line, removing deletes the item's lines, and a
// scalar or flow list is re-rendered on its own lines. Every other byte —
// other keys, comments, blank lines, the fences, CRLF line ends and the whole
// body — is kept. After each splice the new frontmatter is parsed again and
// every other key is checked to decode exactly as before; an edit that would
// change anything else is refused.
//
// Files are written atomically (temp file, fsync, rename) and EditFile holds
// an advisory flock on the chat while it reads, edits and writes, so edits
// from several processes are serialised and none is lost.
package frontmatter

package frontmatter

// Document is a chat file split into its frontmatter (kept as a YAML node tree
// so edits keep key order and comments) and its body (kept byte for byte).
type Document struct{}

// Parse splits content into frontmatter and body. Errors wrap ErrNoFrontmatter
// or ErrMalformed and say where.
func Parse(content []byte) (*Document, error) { panic("TODO") }

// ReadFile reads and parses a chat file.
func ReadFile(path string) (*Document, error) { panic("TODO") }

// Settings decodes the chat settings. A wrong type (a list that is a number,
// a mode that is a map) is an error naming the key.
func (d *Document) Settings() (Settings, error) { panic("TODO") }

// AddToList appends value to the list under key (creating the key if needed)
// unless it is already there; it reports whether anything changed.
func (d *Document) AddToList(key, value string) (bool, error) { panic("TODO") }

// RemoveFromList removes value from the list under key; it reports whether
// anything changed.
func (d *Document) RemoveFromList(key, value string) (bool, error) { panic("TODO") }

// Set sets a scalar key (creating it at the end of the frontmatter if absent).
func (d *Document) Set(key, value string) error { panic("TODO") }

// Delete removes a key; it reports whether it was there.
func (d *Document) Delete(key string) (bool, error) { panic("TODO") }

// Bytes renders the whole file: frontmatter with only the edited keys
// changed, then the body byte for byte.
func (d *Document) Bytes() []byte { panic("TODO") }

// FrontmatterLines returns the frontmatter as lines, including both '---'
// fences, for an editor that replaces only those lines of its buffer.
func (d *Document) FrontmatterLines() []string { panic("TODO") }

// WriteFileAtomic writes data to path through a temp file in the same folder
// and a rename, keeping the file's mode.
func WriteFileAtomic(path string, data []byte) error { panic("TODO") }

// EditFile reads path, applies fn, and writes the result atomically while
// holding an advisory lock, so concurrent edits never interleave or tear.
func EditFile(path string, fn func(*Document) error) error { panic("TODO") }

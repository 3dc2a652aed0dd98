package frontmatter

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"vibing/internal/safefile"
)

// Document is a chat file split into its frontmatter (kept as a YAML node tree
// so edits keep key order and comments) and its body (kept byte for byte).
type Document struct {
	head []byte // optional BOM and the opening fence line with its line end
	fm   []byte // the YAML between the fences, whole lines
	tail []byte // the closing fence line and the body
	eol  string // line end used for inserted lines ("\n" or "\r\n")
	root *yaml.Node
}

var bom = []byte("\xef\xbb\xbf")

// Parse splits content into frontmatter and body. Errors wrap ErrNoFrontmatter
// or ErrMalformed and say where.
func Parse(content []byte) (*Document, error) {
	d := &Document{eol: "\n"}
	rest := bytes.TrimPrefix(content, bom)
	first, after, hasEOL := cutLine(rest)
	if !isFence(first) {
		return nil, ErrNoFrontmatter
	}
	if !hasEOL {
		return nil, fmt.Errorf("%w: no closing '---' line (the frontmatter opens on line 1)", ErrMalformed)
	}
	if bytes.HasSuffix(first, []byte("\r\n")) {
		d.eol = "\r\n"
	}
	d.head = content[:len(content)-len(after)]
	off := 0
	for {
		line, next, _ := cutLine(after[off:])
		if len(line) == 0 {
			return nil, fmt.Errorf("%w: no closing '---' line (the frontmatter opens on line 1)", ErrMalformed)
		}
		if isFence(line) {
			break
		}
		off = len(after) - len(next)
	}
	d.fm = append([]byte(nil), after[:off]...)
	if err := checkBreaks(d.fm); err != nil {
		return nil, err
	}
	d.tail = after[off:]
	root, err := parseYAML(d.fm)
	if err != nil {
		return nil, err
	}
	d.root = root
	return d, nil
}

// ReadFile reads and parses a chat file. It never blocks: a chat that is a
// FIFO or a device, or larger than safefile.ChatLimit, is an error naming it.
func ReadFile(path string) (*Document, error) {
	data, err := safefile.ReadFile(path, safefile.ChatLimit)
	if err != nil {
		return nil, err
	}
	d, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return d, nil
}

// Bytes renders the whole file: frontmatter with only the edited keys
// changed, then the body byte for byte.
func (d *Document) Bytes() []byte {
	out := make([]byte, 0, len(d.head)+len(d.fm)+len(d.tail))
	out = append(out, d.head...)
	out = append(out, d.fm...)
	return append(out, d.tail...)
}

// FrontmatterLines returns the frontmatter as lines, including both '---'
// fences, for an editor that replaces only those lines of its buffer. Line
// ends (also CR of CRLF) are not part of the lines; a BOM is.
func (d *Document) FrontmatterLines() []string {
	lines := []string{trimEOL(string(d.head))}
	for _, l := range splitLines(d.fm) {
		lines = append(lines, trimEOL(l))
	}
	fence, _, _ := cutLine(d.tail)
	return append(lines, trimEOL(string(fence)))
}

// cutLine returns the first line of b (with its "\n"), the rest, and whether
// the line ended with "\n".
func cutLine(b []byte) (line, rest []byte, hasEOL bool) {
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		return b, nil, false
	}
	return b[:i+1], b[i+1:], true
}

// isFence reports whether line is "---" (trailing blanks and line end allowed).
func isFence(line []byte) bool {
	return string(bytes.TrimRight(line, " \t\r\n")) == "---"
}

func trimEOL(s string) string { return strings.TrimRight(s, "\r\n") }

// splitLines splits b into lines that keep their line ends.
func splitLines(b []byte) []string {
	var lines []string
	for len(b) > 0 {
		line, rest, _ := cutLine(b)
		lines = append(lines, string(line))
		b = rest
	}
	return lines
}

// checkBreaks refuses line breaks that YAML counts but a line-based editor
// does not (a lone CR, NEL, LS, PS), so node line numbers name real lines.
func checkBreaks(fm []byte) error {
	for n, line := range splitLines(fm) {
		body := trimEOL(line)
		if strings.Contains(body, "\r") || strings.ContainsAny(body, "\u0085\u2028\u2029") {
			return fmt.Errorf("%w: line %d: a stray carriage return or Unicode line separator", ErrMalformed, n+2)
		}
	}
	return nil
}

var yamlLineRe = regexp.MustCompile(`line (\d+)`)

// parserErrors are the messages of yaml.v3's parser (not its scanner): they
// give the 0-based line where the construct began, the scanner's messages a
// 1-based line.
var parserErrors = []string{
	"did not find expected key", "did not find expected ',' or", "did not find expected '-' indicator",
	"did not find expected node content", "did not find expected <document start>",
	"found incompatible YAML document", "found duplicate %YAML directive", "found duplicate %TAG directive",
	"found undefined tag handle",
}

// parseYAML parses the frontmatter text; nil means an empty frontmatter.
// Line numbers in errors are file lines (the opening fence is line 1).
func parseYAML(fm []byte) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(fm, &doc); err != nil {
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		shift := 1 // the opening fence
		for _, pe := range parserErrors {
			if strings.Contains(msg, pe) {
				shift = 2 // and a 0-based line
			}
		}
		msg = yamlLineRe.ReplaceAllStringFunc(msg, func(m string) string {
			n, _ := strconv.Atoi(strings.TrimPrefix(m, "line "))
			return "line " + strconv.Itoa(n+shift)
		})
		return nil, fmt.Errorf("%w: invalid YAML: %s", ErrMalformed, msg)
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, nil
	}
	root := doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return nil, nil
	}
	if root.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%w: line %d: the frontmatter must be 'key: value' lines, not %s", ErrMalformed, root.Line+1, kindName(root))
	}
	seen := map[string]int{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k := root.Content[i]
		if k.Kind != yaml.ScalarNode {
			continue
		}
		if prev, dup := seen[k.Value]; dup {
			return nil, fmt.Errorf("%w: line %d: key %q repeats the key on line %d", ErrMalformed, k.Line+1, k.Value, prev)
		}
		seen[k.Value] = k.Line + 1
	}
	return root, nil
}

// kindName names a node's kind for error messages.
func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a map"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	case yaml.ScalarNode:
		switch n.Tag {
		case "!!null":
			return "empty"
		case "!!int", "!!float":
			return "a number (" + n.Value + ")"
		case "!!bool":
			return "a boolean (" + n.Value + ")"
		}
		return "a string"
	}
	return "something else"
}

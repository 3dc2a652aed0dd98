package frontmatter

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// errEdit is wrapped when an edit cannot be made without touching other keys.
var errEdit = errors.New("cannot edit frontmatter")

// AddToList appends value to the list under key (creating the key if needed)
// unless it is already there; it reports whether anything changed.
func (d *Document) AddToList(key, value string) (bool, error) {
	if err := checkValue(value); err != nil {
		return false, err
	}
	i := d.keyIndex(key)
	if i < 0 {
		return true, d.appendKey(key, renderBlockList(key, d.indent(), []string{value}, d.eol), []string{value})
	}
	items, err := listValue(key, resolve(d.root.Content[i+1]))
	if err != nil {
		return false, err
	}
	for _, it := range items {
		if it == value {
			return false, nil
		}
	}
	want := append(items, value)
	v := d.root.Content[i+1]
	if v.Kind == yaml.SequenceNode {
		var err error
		if v.Style&yaml.FlowStyle == 0 {
			err = d.insertItem(i, value, want)
		} else {
			err = d.editFlow(i, func(items []string) []string {
				return append(items, renderScalar(value, true))
			}, want)
		}
		if err == nil {
			return true, nil
		}
	}
	return true, d.rewriteList(i, want)
}

// RemoveFromList removes value from the list under key; it reports whether
// anything changed.
func (d *Document) RemoveFromList(key, value string) (bool, error) {
	i := d.keyIndex(key)
	if i < 0 {
		return false, nil
	}
	items, err := listValue(key, resolve(d.root.Content[i+1]))
	if err != nil {
		return false, err
	}
	want := make([]string, 0, len(items))
	for _, it := range items {
		if it != value {
			want = append(want, it)
		}
	}
	if len(want) == len(items) {
		return false, nil
	}
	v := d.root.Content[i+1]
	if v.Kind == yaml.SequenceNode {
		var err error
		if v.Style&yaml.FlowStyle != 0 {
			err = d.editFlow(i, func(items []string) []string {
				kept := items[:0]
				for j, it := range items {
					if n := resolve(v.Content[j]); n.Kind != yaml.ScalarNode || n.Value != value {
						kept = append(kept, it)
					}
				}
				return kept
			}, want)
		} else if len(want) > 0 {
			err = d.deleteItems(i, value, want)
		} else {
			err = errEdit
		}
		if err == nil {
			return true, nil
		}
	}
	return true, d.rewriteList(i, want)
}

// Set sets a scalar key (creating it at the end of the frontmatter if absent).
// Set(KeyMode, m) updates permission_mode when that key is present: it wins
// over permissions_mode (see Settings), so it is the one that must change.
func (d *Document) Set(key, value string) error {
	if strings.ContainsAny(value, "\n\r") {
		return fmt.Errorf("%w: %s: a value must be one line", errEdit, key)
	}
	if key == KeyMode && d.keyIndex(KeyModeAlias) >= 0 {
		key = KeyModeAlias
	}
	text := renderScalar(value, false)
	if key == KeyVibing && (value == "true" || value == "false") {
		text = value
	}
	i := d.keyIndex(key)
	if i < 0 {
		return d.appendKey(key, d.indent()+key+": "+text+d.eol, value)
	}
	r, err := d.keyRange(i)
	if err != nil {
		return err
	}
	prefix, err := d.keyPrefix(i)
	if err != nil {
		return err
	}
	return d.splice(r.start, r.end, d.withComment(i, prefix+" "+text)+d.eol, key, value)
}

// Delete removes a key; it reports whether it was there. Deleting KeyMode
// also deletes its alias, so the alias cannot take over.
func (d *Document) Delete(key string) (bool, error) {
	keys := []string{key}
	if key == KeyMode {
		keys = append(keys, KeyModeAlias)
	}
	deleted := false
	for _, k := range keys {
		i := d.keyIndex(k)
		if i < 0 {
			continue
		}
		r, err := d.keyRange(i)
		if err != nil {
			return deleted, err
		}
		if err := d.splice(r.start, r.end, "", k, deletedKey{}); err != nil {
			return deleted, err
		}
		deleted = true
	}
	return deleted, nil
}

// deletedKey is the expected value of a key an edit removes.
type deletedKey struct{}

func checkValue(v string) error {
	if v == "" || strings.TrimSpace(v) != v || strings.ContainsAny(v, "\n\r") {
		return fmt.Errorf("%w: rule %q must be one non-empty line without surrounding spaces", errEdit, v)
	}
	return nil
}

// isComment reports whether line is a comment indented more than indent.
func isComment(line string, indent int) bool {
	t := strings.TrimLeft(line, " \t")
	return strings.HasPrefix(t, "#") && len(line)-len(t) > indent
}

// lineRange is a half-open range of frontmatter lines (0-based).
type lineRange struct{ start, end int }

func (d *Document) lines() []string { return splitLines(d.fm) }

// line returns frontmatter line n (1-based) without its line end.
func (d *Document) line(n int) (string, error) {
	lines := d.lines()
	if n < 1 || n > len(lines) {
		return "", fmt.Errorf("%w: line %d is outside the frontmatter", errEdit, n+1)
	}
	return trimEOL(lines[n-1]), nil
}

// isBlankOrComment reports whether line is empty or a comment; with maxIndent
// >= 0 only comments indented at most that much count.
func isBlankOrComment(line string, maxIndent int) bool {
	t := strings.TrimLeft(line, " \t")
	t = trimEOL(t)
	if t == "" {
		return true
	}
	return t[0] == '#' && (maxIndent < 0 || len(line)-len(strings.TrimLeft(line, " \t")) <= maxIndent)
}

// keyRange returns the lines of the key at root.Content[i] and its value,
// without the blank and comment lines that follow it.
func (d *Document) keyRange(i int) (lineRange, error) {
	k, v := d.root.Content[i], d.root.Content[i+1]
	lines := d.lines()
	end := len(lines)
	if i+2 < len(d.root.Content) {
		end = d.root.Content[i+2].Line - 1
	}
	maxIndent := -1
	if v.Kind == yaml.ScalarNode && (v.Style&(yaml.LiteralStyle|yaml.FoldedStyle)) != 0 {
		maxIndent = k.Column - 1
	}
	start := k.Line - 1
	if start < 0 || end > len(lines) || end <= start {
		return lineRange{}, fmt.Errorf("%w: %s: cannot locate its lines", errEdit, k.Value)
	}
	for end > start+1 && isBlankOrComment(lines[end-1], maxIndent) {
		end--
	}
	return lineRange{start, end}, nil
}

// indent is the indentation of the top-level keys.
func (d *Document) indent() string {
	if d.root == nil || len(d.root.Content) == 0 {
		return ""
	}
	return strings.Repeat(" ", d.root.Content[0].Column-1)
}

// byteCol converts a 1-based rune column on line to a byte offset.
func byteCol(line string, col int) int {
	off := 0
	for n := 1; n < col && off < len(line); n++ {
		_, w := utf8.DecodeRuneInString(line[off:])
		off += w
	}
	return off
}

// keyPrefix returns the key's line up to and including the ':' after the key,
// written as in the file (indentation, quotes).
func (d *Document) keyPrefix(i int) (string, error) {
	k := d.root.Content[i]
	line, err := d.line(k.Line)
	if err != nil {
		return "", err
	}
	p := byteCol(line, k.Column)
	switch k.Style {
	case 0:
		p += len(k.Value)
	case yaml.DoubleQuotedStyle:
		p++
		for p < len(line) && line[p] != '"' {
			if line[p] == '\\' {
				p++
			}
			p++
		}
		p++
	case yaml.SingleQuotedStyle:
		p++
		for p < len(line) && !(line[p] == '\'' && (p+1 >= len(line) || line[p+1] != '\'')) {
			if line[p] == '\'' {
				p++
			}
			p++
		}
		p++
	default:
		return "", fmt.Errorf("%w: %s: unusual key syntax", errEdit, k.Value)
	}
	for p < len(line) && (line[p] == ' ' || line[p] == '\t') {
		p++
	}
	if p >= len(line) || line[p] != ':' {
		return "", fmt.Errorf("%w: %s: unusual key syntax on line %d", errEdit, k.Value, k.Line+1)
	}
	return line[:p+1], nil
}

// withComment appends to text the comment that ended the key's first line,
// at the same column when text is short enough, so a re-rendered key keeps
// its comment and the comments stay aligned.
func (d *Document) withComment(i int, text string) string {
	k, v := d.root.Content[i], d.root.Content[i+1]
	line, err := d.line(k.Line)
	if err != nil {
		return text
	}
	for _, c := range []string{k.LineComment, v.LineComment} {
		if c == "" || strings.Contains(c, "\n") {
			continue
		}
		j := strings.LastIndex(line, c)
		if j <= 0 || (line[j-1] != ' ' && line[j-1] != '\t') {
			continue
		}
		pad := utf8.RuneCountInString(line[:j]) - utf8.RuneCountInString(text)
		if strings.Contains(line[:j], "\t") || pad < 1 {
			pad = 1
		}
		return text + strings.Repeat(" ", pad) + line[j:]
	}
	return text
}

// editFlow rewrites a one-line flow list in place, keeping the source text
// of the items that stay, any anchor before '[' and anything after ']'.
func (d *Document) editFlow(i int, edit func(items []string) []string, want []string) error {
	k, v := d.root.Content[i], d.root.Content[i+1]
	if _, err := d.line(v.Line); err != nil {
		return err
	}
	raw := d.lines()[v.Line-1]
	line := trimEOL(raw)
	open := byteCol(line, v.Column)
	for open < len(line) && line[open] != '[' {
		open++
	}
	items, end, ok := flowItems(line, open)
	if !ok || len(items) != len(v.Content) {
		return errEdit
	}
	text := line[:open] + "[" + strings.Join(edit(items), ", ") + "]" + raw[end:]
	return d.splice(v.Line-1, v.Line, text, k.Value, want)
}

// flowItems splits the flow list that opens at line[open] into the source
// text of its items; end is the offset after the closing ']'. It fails on a
// list that does not close on this line or nests other collections.
func flowItems(line string, open int) (items []string, end int, ok bool) {
	if open >= len(line) || line[open] != '[' {
		return nil, 0, false
	}
	start := open + 1
	for p := open + 1; p < len(line); p++ {
		switch line[p] {
		case '"':
			for p++; p < len(line) && line[p] != '"'; p++ {
				if line[p] == '\\' {
					p++
				}
			}
		case '\'':
			for p++; p < len(line); p++ {
				if line[p] == '\'' {
					if p+1 < len(line) && line[p+1] == '\'' {
						p++
						continue
					}
					break
				}
			}
		case '[', '{', '#':
			return nil, 0, false
		case ',', ']':
			if it := strings.TrimSpace(line[start:p]); it != "" {
				items = append(items, it)
			} else if line[p] == ',' {
				return nil, 0, false
			}
			if line[p] == ']' {
				return items, p + 1, true
			}
			start = p + 1
		}
	}
	return nil, 0, false
}

// insertItem adds a "- value" line after the last item of a block list.
func (d *Document) insertItem(i int, value string, want []string) error {
	v := d.root.Content[i+1]
	if len(v.Content) == 0 {
		return errEdit
	}
	first := v.Content[0]
	fl, err := d.line(first.Line)
	if err != nil {
		return err
	}
	prefix := fl[:byteCol(fl, first.Column)]
	if strings.Trim(prefix, " ") != "-" || !strings.HasSuffix(prefix, " ") {
		return errEdit
	}
	r, err := d.keyRange(i)
	if err != nil {
		return err
	}
	k := d.root.Content[i]
	return d.splice(r.end, r.end, prefix+renderScalar(value, false)+d.eol, k.Value, want)
}

// deleteItems removes the lines of every item equal to value from a block list.
func (d *Document) deleteItems(i int, value string, want []string) error {
	k, v := d.root.Content[i], d.root.Content[i+1]
	r, err := d.keyRange(i)
	if err != nil {
		return err
	}
	lines := d.lines()
	keep := make([]bool, len(lines))
	for j := range keep {
		keep[j] = true
	}
	for j, it := range v.Content {
		if it.Kind != yaml.ScalarNode || it.Value != value {
			continue
		}
		if it.Line == k.Line {
			return errEdit
		}
		end := r.end
		if j+1 < len(v.Content) {
			end = v.Content[j+1].Line - 1
		}
		start := it.Line - 1
		if start <= r.start || end > r.end || end <= start {
			return errEdit
		}
		for end > start+1 && isBlankOrComment(lines[end-1], -1) {
			end--
		}
		// Comment lines right above the item, inside the list, describe it.
		for start-1 > k.Line-1 && keep[start-1] && isComment(lines[start-1], k.Column-1) {
			start--
		}
		for x := start; x < end; x++ {
			keep[x] = false
		}
	}
	var b strings.Builder
	for j := r.start; j < r.end; j++ {
		if keep[j] {
			b.WriteString(lines[j])
		}
	}
	return d.splice(r.start, r.end, b.String(), k.Value, want)
}

// rewriteList renders the whole key with its new items: flow style if it was
// written in flow style or on one line, block style otherwise.
func (d *Document) rewriteList(i int, items []string) error {
	k, v := d.root.Content[i], d.root.Content[i+1]
	r, err := d.keyRange(i)
	if err != nil {
		return err
	}
	prefix, err := d.keyPrefix(i)
	if err != nil {
		return err
	}
	var text string
	if len(items) == 0 || v.Style&yaml.FlowStyle != 0 || (v.Kind == yaml.ScalarNode && v.Tag != "!!null") {
		quoted := make([]string, len(items))
		for j, it := range items {
			quoted[j] = renderScalar(it, true)
		}
		text = d.withComment(i, prefix+" ["+strings.Join(quoted, ", ")+"]") + d.eol
	} else {
		indent := strings.Repeat(" ", k.Column-1)
		text = d.withComment(i, prefix) + d.eol + renderItems(indent, items, d.eol)
	}
	return d.splice(r.start, r.end, text, k.Value, items)
}

func renderBlockList(key, indent string, items []string, eol string) string {
	return indent + key + ":" + eol + renderItems(indent, items, eol)
}

func renderItems(indent string, items []string, eol string) string {
	var b strings.Builder
	for _, it := range items {
		b.WriteString(indent + "  - " + renderScalar(it, false) + eol)
	}
	return b.String()
}

// appendKey adds text (a whole new key, indented) after the last non-blank line.
func (d *Document) appendKey(key, text string, want any) error {
	lines := d.lines()
	at := len(lines)
	for at > 0 && strings.TrimSpace(lines[at-1]) == "" {
		at--
	}
	return d.splice(at, at, text, key, want)
}

// splice replaces lines [start, end) of the frontmatter with text, then checks
// that key now holds want and every other key is unchanged.
func (d *Document) splice(start, end int, text, key string, want any) error {
	lines := d.lines()
	if start < 0 || end < start || end > len(lines) {
		return fmt.Errorf("%w: %s: lines %d-%d are outside the frontmatter", errEdit, key, start+2, end+1)
	}
	var b strings.Builder
	for _, l := range lines[:start] {
		b.WriteString(l)
	}
	b.WriteString(text)
	for _, l := range lines[end:] {
		b.WriteString(l)
	}
	fm := []byte(b.String())
	root, err := parseYAML(fm)
	if err != nil {
		return fmt.Errorf("%w: %s: the edit would not parse (%v)", errEdit, key, err)
	}
	nd := &Document{head: d.head, fm: fm, tail: d.tail, eol: d.eol, root: root}
	if err := sameExcept(d, nd, key, want); err != nil {
		return err
	}
	d.fm, d.root = fm, root
	return nil
}

// sameExcept checks that every key but key decodes as before, in the same
// order, and that key now holds want.
func sameExcept(old, nd *Document, key string, want any) error {
	before, after := topLevel(old.root), topLevel(nd.root)
	var ob, nb []kv
	for _, e := range before {
		if e.key != key {
			ob = append(ob, e)
		}
	}
	for _, e := range after {
		if e.key != key {
			nb = append(nb, e)
		}
	}
	if !reflect.DeepEqual(ob, nb) {
		return fmt.Errorf("%w: %s: the edit would change other keys (anchors or unusual layout); edit it by hand", errEdit, key)
	}
	v := nd.value(key)
	switch w := want.(type) {
	case deletedKey:
		if v != nil {
			return fmt.Errorf("%w: %s: still present after the edit", errEdit, key)
		}
		return nil
	case string:
		if v == nil || v.Kind != yaml.ScalarNode || v.Value != w {
			return fmt.Errorf("%w: %s: could not write %q", errEdit, key, w)
		}
		return nil
	case []string:
		if v == nil {
			return fmt.Errorf("%w: %s: missing after the edit", errEdit, key)
		}
		got, err := listValue(key, v)
		if err != nil || !reflect.DeepEqual(got, w) && !(len(got) == 0 && len(w) == 0) {
			return fmt.Errorf("%w: %s: could not write the list %q", errEdit, key, w)
		}
		return nil
	}
	return fmt.Errorf("%w: %s: unexpected value", errEdit, key)
}

type kv struct {
	key string
	val any
}

func topLevel(root *yaml.Node) []kv {
	if root == nil {
		return nil
	}
	var out []kv
	for i := 0; i+1 < len(root.Content); i += 2 {
		var v any
		if err := root.Content[i+1].Decode(&v); err != nil {
			v = "undecodable: " + err.Error()
		}
		out = append(out, kv{root.Content[i].Value, v})
	}
	return out
}

// renderScalar writes s plain when YAML reads it back as exactly s (in flow
// or block context), else double-quoted.
func renderScalar(s string, flow bool) string {
	if plainOK(s, flow) {
		return s
	}
	return quote(s)
}

func plainOK(s string, flow bool) bool {
	if s == "" || strings.TrimSpace(s) != s || strings.ContainsAny(s, "\n\r\t#\"'") {
		return false
	}
	src := "k: " + s
	if flow {
		src = "k: [" + s + "]"
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil || len(doc.Content) != 1 {
		return false
	}
	m := doc.Content[0]
	if m.Kind != yaml.MappingNode || len(m.Content) != 2 {
		return false
	}
	n := m.Content[1]
	if flow {
		if n.Kind != yaml.SequenceNode || len(n.Content) != 1 {
			return false
		}
		n = n.Content[0]
	}
	return n.Kind == yaml.ScalarNode && n.Style == 0 && n.Value == s && n.Tag != "!!null" &&
		n.Anchor == "" && n.LineComment == "" && n.HeadComment == "" && n.FootComment == ""
}

// quote writes s as a YAML double-quoted scalar.
func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == utf8.RuneError:
			b.WriteString(`\uFFFD`)
		case !strconv.IsPrint(r) && r > 0xFFFF:
			fmt.Fprintf(&b, `\U%08X`, r)
		case !strconv.IsPrint(r) && r != ' ':
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

package rpc

import (
	"errors"
	"fmt"
	"strings"

	"vibing/internal/config"
	"vibing/internal/frontmatter"
	"vibing/internal/matcher"
	"vibing/internal/tools"
)

// Edit operations.
const (
	OpAdd          = "add"           // add Rules to List
	OpRemove       = "remove"        // remove Rules from List
	OpMode         = "mode"          // set permissions_mode to Value
	OpPreset       = "preset"        // set permissions_preset to Value ("" or "-": remove it)
	OpClearSession = "clear_session" // delete session_id: the next message starts a fresh session
	OpSetSession   = "set_session"   // set session_id to Value: the next message resumes that session
	OpModel        = "model"         // set model to Value ("" or "-": remove it, the CLI's default)
)

// NoteAllowOverridesAsk is shown when a rule stands in both the allow and the ask list.
const NoteAllowOverridesAsk = "Note: Allow list overrides ask list - tool will be auto-approved"

// Edit is one change to a chat's frontmatter.
type Edit struct {
	Op    string
	List  string   // allow | ask | deny (OpAdd, OpRemove)
	Rules []string // rule texts as the person typed them
	Value string   // mode or preset name
}

// EditResult is the frontmatter after an edit.
type EditResult struct {
	Lines   []string // the new frontmatter lines, both fences included
	Changed bool
	Notes   []string // interactions with the other lists worth knowing
	Message string   // one sentence saying what changed (or why nothing did)
}

var listKeys = map[string]string{
	"allow": frontmatter.KeyAllow,
	"ask":   frontmatter.KeyAsk,
	"deny":  frontmatter.KeyDeny,
}

// ApplyEdit applies e to the chat frontmatter in lines. A person's mistake
// (an invalid rule, an unknown mode or preset, a malformed frontmatter) is an
// error and nothing is changed; an ill-formed request wraps ErrBadRequest.
func ApplyEdit(cfg *config.Config, lines []string, e Edit) (EditResult, error) {
	doc, s, err := parseLines(lines)
	if err != nil {
		return EditResult{}, err
	}
	var res EditResult
	switch e.Op {
	case OpAdd:
		err = addRules(doc, s, e, &res)
	case OpRemove:
		err = removeRules(doc, s, e, &res)
	case OpMode:
		err = setMode(doc, lines, e.Value, &res)
	case OpPreset:
		err = setPreset(cfg, doc, e.Value, &res)
	case OpClearSession:
		res.Changed, err = doc.Delete(frontmatter.KeySessionID)
		res.Message = "Started a new session: the next message will not resume the previous one."
		if err == nil && !res.Changed {
			res.Message = "This chat has no session yet: the next message starts a fresh one."
		}
	case OpSetSession:
		err = setSession(doc, s, e.Value, &res)
	case OpModel:
		err = setModel(doc, e.Value, &res)
	default:
		return EditResult{}, badRequest("op must be one of add, remove, mode, preset, clear_session, set_session, model, got %q", e.Op)
	}
	if err != nil {
		return EditResult{}, err
	}
	res.Lines = doc.FrontmatterLines()
	return res, nil
}

func listKey(list string) (string, error) {
	k, ok := listKeys[list]
	if !ok {
		return "", badRequest("list must be allow, ask or deny, got %q", list)
	}
	return k, nil
}

func addRules(doc *frontmatter.Document, s frontmatter.Settings, e Edit, res *EditResult) error {
	key, err := listKey(e.List)
	if err != nil {
		return err
	}
	if len(e.Rules) == 0 {
		return badRequest("add needs at least one rule")
	}
	// Every rule is checked before anything is written: one bad rule, no edit.
	parsed := make([]*matcher.Rule, 0, len(e.Rules))
	var bad []string
	for _, text := range e.Rules {
		r, err := parseRule(text)
		if err != nil {
			bad = append(bad, err.Error())
			continue
		}
		parsed = append(parsed, r)
	}
	if len(bad) > 0 {
		return errors.New(strings.Join(bad, "\n"))
	}
	var added, present []string
	for _, r := range parsed {
		ok, err := doc.AddToList(key, r.Text)
		if err != nil {
			return err
		}
		if ok {
			added = append(added, r.Text)
		} else {
			present = append(present, r.Text)
		}
		res.Notes = append(res.Notes, notesFor(s, e.List, r)...)
	}
	res.Changed = len(added) > 0
	res.Message = describe("Added", "to", key, added, present, "already in")
	return nil
}

func removeRules(doc *frontmatter.Document, s frontmatter.Settings, e Edit, res *EditResult) error {
	key, err := listKey(e.List)
	if err != nil {
		return err
	}
	if len(e.Rules) == 0 {
		return badRequest("remove needs at least one rule")
	}
	current := map[string][]string{"allow": s.Allow, "ask": s.Ask, "deny": s.Deny}[e.List]
	var removed, missing []string
	for _, text := range e.Rules {
		want := canonical(text)
		hit := false
		for _, entry := range current {
			if entry != text && canonical(entry) != want {
				continue
			}
			ok, err := doc.RemoveFromList(key, entry)
			if err != nil {
				return err
			}
			hit = hit || ok
		}
		if hit {
			removed = append(removed, want)
		} else {
			missing = append(missing, text)
		}
	}
	res.Changed = len(removed) > 0
	res.Message = describe("Removed", "from", key, removed, missing, "not in")
	return nil
}

// describe says what an add or remove did in one or two sentences.
func describe(verb, prep, key string, done, skipped []string, skippedWhy string) string {
	var parts []string
	if len(done) > 0 {
		parts = append(parts, fmt.Sprintf("%s %s %s %s.", verb, strings.Join(done, ", "), prep, key))
	}
	if len(skipped) > 0 {
		v := "is"
		if len(skipped) > 1 {
			v = "are"
		}
		parts = append(parts, fmt.Sprintf("%s %s %s %s.", strings.Join(skipped, ", "), v, skippedWhy, key))
	}
	return strings.Join(parts, " ")
}

// canonical is a rule's canonical text, or the text itself when it is not a rule.
func canonical(text string) string {
	if r, err := parseRule(text); err == nil {
		return r.Text
	}
	return strings.TrimSpace(text)
}

// notesFor says how rule r, just added to list, interacts with the chat's
// other lists: allow beats ask, deny beats both.
func notesFor(s frontmatter.Settings, list string, r *matcher.Rule) []string {
	var notes []string
	switch list {
	case "allow", "ask":
		other := map[string][]string{"allow": s.Ask, "ask": s.Allow}[list]
		for _, entry := range other {
			if canonical(entry) == r.Text {
				notes = append(notes, NoteAllowOverridesAsk)
				break
			}
		}
		for _, entry := range s.Deny {
			if shadows(r, entry, "") {
				notes = append(notes, fmt.Sprintf("Note: Deny list overrides %s list - %s stays refused (deny: %s)", list, r.Text, entry))
				break
			}
		}
	case "deny":
		var hits []string
		for _, l := range []struct {
			name    string
			entries []string
		}{{"allow", s.Allow}, {"ask", s.Ask}} {
			for _, entry := range l.entries {
				if shadows(r, "", entry) {
					hits = append(hits, fmt.Sprintf("%s (%s)", entry, l.name))
				}
			}
		}
		if len(hits) > 0 {
			notes = append(notes, fmt.Sprintf("Note: Deny list overrides allow and ask lists - %s will be refused", strings.Join(hits, ", ")))
		}
	}
	return notes
}

// shadows reports whether a deny rule makes an allow or ask rule dead: the
// same rule, or a bare deny on the same tool. Exactly one of denyText and
// otherText is empty; the empty one is r.
func shadows(r *matcher.Rule, denyText, otherText string) bool {
	deny, other := r, r
	var err error
	if denyText != "" {
		if deny, err = parseRule(denyText); err != nil {
			return false
		}
	} else if other, err = parseRule(otherText); err != nil {
		return false
	}
	if deny.Text == other.Text {
		return true
	}
	return !deny.HasArg() && deny.Tool != "" && other.Tool != "" && tools.Same(deny.Tool, other.Tool)
}

func setMode(doc *frontmatter.Document, lines []string, mode string, res *EditResult) error {
	mode = strings.TrimSpace(mode)
	if !config.ValidMode(mode) {
		return fmt.Errorf("unknown permission mode %q: use one of %s (example: /permission acceptEdits)", mode, strings.Join(config.Modes, ", "))
	}
	key := frontmatter.KeyMode
	if hasKey(lines, frontmatter.KeyModeAlias) {
		key = frontmatter.KeyModeAlias // it wins over permissions_mode, so it is the one to change
	}
	if err := doc.Set(key, mode); err != nil {
		return err
	}
	res.Changed = true
	res.Message = fmt.Sprintf("Set %s to %s.", key, mode)
	return nil
}

func setPreset(cfg *config.Config, doc *frontmatter.Document, name string, res *EditResult) error {
	name = strings.TrimSpace(name)
	if name == "" || name == "-" {
		ok, err := doc.Delete(frontmatter.KeyPreset)
		if err != nil {
			return err
		}
		res.Changed = ok
		res.Message = "Removed the preset."
		if !ok {
			res.Message = "This chat has no preset."
		}
		return nil
	}
	if _, ok := cfg.Preset(name); !ok {
		return fmt.Errorf("unknown preset %q: use one of %s (example: /preset standard)", name, strings.Join(cfg.PresetNames(), ", "))
	}
	if err := doc.Set(frontmatter.KeyPreset, name); err != nil {
		return err
	}
	res.Changed = true
	res.Message = fmt.Sprintf("Set %s to %s.", frontmatter.KeyPreset, name)
	return nil
}

// hasKey reports whether a top-level key is written in the frontmatter lines.
func hasKey(lines []string, key string) bool {
	for i, l := range lines {
		if i > 0 && strings.TrimRight(l, " \t\r") == "---" {
			return false
		}
		if strings.HasPrefix(l, key+":") {
			return true
		}
	}
	return false
}

// validSessionID reports whether id is a plausible session id (the CLI's are UUIDs).
func validSessionID(id string) bool {
	if id == "" || len(id) > 200 {
		return false
	}
	for _, r := range id {
		if !(r == '-' || r == '_' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return true
}

func setSession(doc *frontmatter.Document, s frontmatter.Settings, id string, res *EditResult) error {
	if !validSessionID(id) {
		return badRequest("set_session needs a session id of letters, digits, '-', '_' or '.', got %q", id)
	}
	if s.SessionID == id {
		res.Message = "The chat already resumes session " + id + "."
		return nil
	}
	if err := doc.Set(frontmatter.KeySessionID, id); err != nil {
		return err
	}
	res.Changed = true
	res.Message = "The next message resumes session " + id + "."
	return nil
}

// setModel sets the chat's model (passed to the CLI as --model) or, for ""
// and "-", removes it so the CLI's default applies.
func setModel(doc *frontmatter.Document, name string, res *EditResult) error {
	name = strings.TrimSpace(name)
	if name == "" || name == "-" {
		ok, err := doc.Delete(frontmatter.KeyModel)
		if err != nil {
			return err
		}
		res.Changed = ok
		res.Message = "Removed the model: the CLI's default model answers."
		if !ok {
			res.Message = "No model is set: the CLI's default model answers."
		}
		return nil
	}
	if strings.ContainsAny(name, " \t\n\r'\"`$;&|<>") || strings.HasPrefix(name, "-") {
		return fmt.Errorf("%q is not a model name: use an alias (sonnet, opus, haiku) or a full model name (example: /model sonnet)", name)
	}
	if err := doc.Set(frontmatter.KeyModel, name); err != nil {
		return err
	}
	res.Changed = true
	res.Message = fmt.Sprintf("Set model to %s (from the next message on).", name)
	return nil
}

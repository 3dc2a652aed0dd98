package policy

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"

	"vibing/internal/safefile"
	"vibing/internal/session"
)

// Case is one line of a policy test: a tool call and the decision it must
// get from the effective policy.
type Case struct {
	Name   string          `yaml:"name"`
	Tool   string          `yaml:"tool"`
	Input  map[string]any  `yaml:"input"`
	Cwd    string          `yaml:"cwd"`    // relative to the project root ("" = the root)
	Expect session.Verdict `yaml:"expect"` // allow | ask | deny
	Source string          `yaml:"source"` // optional: the decision's source must start with it
	Line   int             `yaml:"-"`
}

// Cases is a policy test file:
//
//	chat: .vibing/chat/team.md   # optional, relative to the file
//	cases:
//	  - {tool: Bash, input: {command: "rm -rf build"}, expect: deny}
type Cases struct {
	Chat  string `yaml:"chat"`
	Cases []Case `yaml:"cases"`
}

// ReadCases reads a policy test file; every case must name a tool, an input
// and one of allow, ask, deny.
func ReadCases(path string) (*Cases, error) {
	data, err := safefile.ReadFile(path, safefile.PolicyLimit)
	if err != nil {
		return nil, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var cs Cases
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	dec.KnownFields(true)
	if err := dec.Decode(&cs); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(doc.Content) > 0 {
		setLines(doc.Content[0], &cs)
	}
	if len(cs.Cases) == 0 {
		return nil, fmt.Errorf("%s: no cases (write cases: [{tool: Bash, input: {command: ls}, expect: allow}])", path)
	}
	var errs []error
	for i, c := range cs.Cases {
		switch {
		case c.Tool == "":
			errs = append(errs, fmt.Errorf("%s: line %d: case %d names no tool", path, c.Line, i+1))
		case !c.Expect.Valid():
			errs = append(errs, fmt.Errorf("%s: line %d: case %d: expect must be allow, ask or deny, got %q", path, c.Line, i+1, c.Expect))
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if cs.Chat != "" && !filepath.IsAbs(cs.Chat) {
		cs.Chat = filepath.Join(filepath.Dir(path), cs.Chat)
	}
	return &cs, nil
}

func setLines(root *yaml.Node, cs *Cases) {
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value != "cases" {
			continue
		}
		for j, it := range root.Content[i+1].Content {
			if j < len(cs.Cases) {
				cs.Cases[j].Line = it.Line
			}
		}
	}
}

// Result is one case's outcome.
type Result struct {
	Case   Case
	Got    session.Verdict // the decision
	Source string
	Reason string
	Pass   bool
}

// Run decides every case with ch's engine (each in its cwd, relative to the
// project root) and reports each outcome.
func (cs *Cases) Run(ch *Chat) []Result {
	out := make([]Result, 0, len(cs.Cases))
	for _, c := range cs.Cases {
		cwd := ch.Cwd
		if c.Cwd != "" {
			cwd = absFrom(ch.Root, c.Cwd)
		}
		input := c.Input
		if input == nil {
			input = map[string]any{}
		}
		d := ch.Engine.DecideIn(c.Tool, input, cwd)
		r := Result{Case: c, Got: d.Decision, Source: d.Source, Reason: d.Reason}
		r.Pass = d.Decision == c.Expect && strings.HasPrefix(d.Source, c.Source)
		out = append(out, r)
	}
	return out
}

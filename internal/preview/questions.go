package preview

import "strings"

// Question is one question of an AskUserQuestion call, with its options.
type Question struct {
	Question    string   `json:"question"`
	Header      string   `json:"header,omitempty"`
	MultiSelect bool     `json:"multi_select,omitempty"`
	Options     []Option `json:"options,omitempty"`
}

// Option is one answer the agent offers to a question.
type Option struct {
	Label       string `json:"label"`
	Description string `json:"description,omitempty"`
}

// questions reads the questions of an AskUserQuestion input; a malformed
// input is shown as JSON with a problem instead.
func questions(input map[string]any) Preview {
	raw, _ := input["questions"].([]any)
	p := Preview{Kind: KindQuestions}
	for _, q := range raw {
		m, _ := q.(map[string]any)
		text, _ := m["question"].(string)
		if strings.TrimSpace(text) == "" {
			return Preview{Kind: KindJSON, JSON: indentJSON(input), Problem: "the agent's question has no text"}
		}
		one := Question{Question: text}
		one.Header, _ = m["header"].(string)
		one.MultiSelect, _ = m["multiSelect"].(bool)
		opts, _ := m["options"].([]any)
		for _, o := range opts {
			om, _ := o.(map[string]any)
			label, _ := om["label"].(string)
			if label == "" {
				continue
			}
			desc, _ := om["description"].(string)
			one.Options = append(one.Options, Option{Label: label, Description: desc})
		}
		p.Questions = append(p.Questions, one)
	}
	if len(p.Questions) == 0 {
		return Preview{Kind: KindJSON, JSON: indentJSON(input), Problem: "the agent asked no question"}
	}
	return p
}

// firstQuestion is the text of an AskUserQuestion call's first question.
func firstQuestion(input map[string]any) string {
	raw, _ := input["questions"].([]any)
	if len(raw) == 0 {
		return ""
	}
	m, _ := raw[0].(map[string]any)
	s, _ := m["question"].(string)
	if len(raw) > 1 && s != "" {
		s += " (+ more questions)"
	}
	return s
}

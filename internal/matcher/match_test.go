package matcher_test

import (
	"testing"

	"vibing/internal/command"
	"vibing/internal/matcher"
)

func TestMatchSpecRows(t *testing.T) {
	t.Parallel()
	tests := []struct {
		rule  string
		list  string
		tool  string
		input map[string]any
		want  bool
	}{
		// bare tools
		{"Bash", "allow", "Bash", map[string]any{"command": "anything at all"}, true},
		{"bash", "deny", "Bash", map[string]any{"command": "ls"}, true},
		{"Read", "allow", "Bash", map[string]any{"command": "ls"}, false},
		{"Task", "allow", "Agent", map[string]any{"subagent_type": "x"}, true},
		{"Agent", "deny", "Task", map[string]any{"subagent_type": "x"}, true},
		// MCP and prefixes
		{"mcp__github", "allow", "mcp__github__create_issue", nil, true},
		{"mcp__github__*", "allow", "mcp__github__create_issue", nil, true},
		{"mcp__github", "allow", "mcp__githubx__create_issue", nil, false},
		{"mcp__github", "deny", "mcp__github", nil, true},
		{"mcp__github__create_issue", "allow", "mcp__github__create_issue", nil, true},
		{"mcp__github__create_issue", "allow", "mcp__github__delete_repo", nil, false},
		{"Note*", "allow", "NotebookEdit", map[string]any{"notebook_path": "a.ipynb"}, true},
		{"Note*", "allow", "Read", map[string]any{"file_path": "a"}, false},
		// Bash exact
		{"Bash(npm install)", "allow", "Bash", map[string]any{"command": "npm install"}, true},
		{"Bash(npm install)", "allow", "Bash", map[string]any{"command": "npm   install"}, true},
		{"Bash(npm  install)", "allow", "Bash", map[string]any{"command": "npm install"}, true},
		{"Bash(npm install)", "allow", "Bash", map[string]any{"command": "npm install lodash"}, false},
		{"Bash(rm -rf)", "deny", "Bash", map[string]any{"command": "rm -rf build"}, true},
		// deny compares options by meaning: clusters split, any order
		{"Bash(rm -rf)", "deny", "Bash", map[string]any{"command": "rm -rfx build"}, true},
		{"Bash(rm -rf)", "deny", "Bash", map[string]any{"command": "rm -rx build"}, false},
		{"Bash(rm -rf)", "deny", "Bash", map[string]any{"command": "rm -R --force build"}, true},
		{"Bash(rm -rf)", "allow", "Bash", map[string]any{"command": "rm -fr"}, false},
		{"Bash(rm -rf)", "ask", "Bash", map[string]any{"command": "rm -rf"}, true},
		// Bash prefix
		{"Bash(npm:*)", "allow", "Bash", map[string]any{"command": "npm test"}, true},
		{"Bash(npm:*)", "allow", "Bash", map[string]any{"command": "npm"}, true},
		{"Bash(npm:*)", "allow", "Bash", map[string]any{"command": "npmx test"}, false},
		{"Bash(npm:*)", "allow", "Bash", map[string]any{"command": "ls"}, false},
		{"Bash(git commit:*)", "allow", "Bash", map[string]any{"command": "git commit -m 'msg'"}, true},
		{"Bash(git commit:*)", "allow", "Bash", map[string]any{"command": "git commit --amend"}, true},
		{"Bash(git commit:*)", "allow", "Bash", map[string]any{"command": "git committee"}, false},
		{"Bash(git:*)", "deny", "Bash", map[string]any{"command": "ls && git push"}, true},
		// Bash wildcard
		{"Bash(npm run *)", "allow", "Bash", map[string]any{"command": "npm run build"}, true},
		{"Bash(npm run *)", "allow", "Bash", map[string]any{"command": "npm test"}, false},
		{"Bash(npm run *)", "allow", "Bash", map[string]any{"command": "npm run build; rm -rf x"}, false},
		{"Bash(* --version)", "allow", "Bash", map[string]any{"command": "go --version"}, true},
		// files
		{"Read(src/**/*.ts)", "allow", "Read", map[string]any{"file_path": "src/a.ts"}, true},
		{"Read(src/**/*.ts)", "allow", "Read", map[string]any{"file_path": "/work/proj/src/x/y/a.ts"}, true},
		{"Read(src/**/*.ts)", "allow", "Read", map[string]any{"file_path": "src/a.js"}, false},
		{"Read(src/**/*.ts)", "allow", "Read", map[string]any{"file_path": "/other/src/a.ts"}, false},
		{"Read(src/**)", "allow", "Read", map[string]any{"file_path": "src/deep/er/file"}, true},
		{"Write(*.json)", "allow", "Write", map[string]any{"file_path": "package.json"}, true},
		{"Write(*.json)", "allow", "Write", map[string]any{"file_path": "sub/package.json"}, false},
		{"Write(*.json)", "deny", "Write", map[string]any{"file_path": "sub/package.json"}, true},
		{"Write(*.json)", "deny", "Write", map[string]any{"file_path": "/etc/x.json"}, true},
		{"Edit(config/*.yaml)", "allow", "Edit", map[string]any{"file_path": "config/a.yaml"}, true},
		{"Edit(config/*.yaml)", "allow", "Edit", map[string]any{"file_path": "config/x/a.yaml"}, false},
		{"Edit(config/*.yaml)", "allow", "MultiEdit", map[string]any{"file_path": "config/a.yaml"}, true},
		{"Edit(*.ipynb)", "allow", "NotebookEdit", map[string]any{"notebook_path": "a.ipynb"}, true},
		{"Read(?.txt)", "allow", "Read", map[string]any{"file_path": "a.txt"}, true},
		{"Read([ab].txt)", "allow", "Read", map[string]any{"file_path": "c.txt"}, false},
		{"Read({a,b}.txt)", "allow", "Read", map[string]any{"file_path": "b.txt"}, true},
		{"Read(.env)", "deny", "Read", map[string]any{"file_path": "deep/down/.env"}, true},
		{"Read(.env)", "deny", "Read", map[string]any{"file_path": "/elsewhere/.env"}, true},
		{"Read(.env)", "allow", "Read", map[string]any{"file_path": "deep/.env"}, false},
		{"Read(*.key)", "ask", "Read", map[string]any{"file_path": "/tmp/x/server.key"}, true},
		{"Read(/etc/**)", "deny", "Read", map[string]any{"file_path": "/etc/passwd"}, true},
		{"Read(//etc/**)", "deny", "Read", map[string]any{"file_path": "/etc/ssh/x"}, true},
		{"Read(~/.ssh/**)", "deny", "Read", map[string]any{"file_path": "~/.ssh/id_rsa"}, true},
		{"Read(~/.ssh/**)", "deny", "Read", map[string]any{"file_path": "/home/u/.ssh/id_rsa"}, true},
		{"Read(~/.ssh/**)", "deny", "Read", map[string]any{"file_path": "/home/v/.ssh/id_rsa"}, false},
		// write implies read; read deny implies write deny
		{"Edit(src/**)", "allow", "Read", map[string]any{"file_path": "src/a.go"}, true},
		{"Write(src/**)", "allow", "NotebookRead", map[string]any{"notebook_path": "src/a.ipynb"}, true},
		{"Edit(src/**)", "deny", "Read", map[string]any{"file_path": "src/a.go"}, false},
		{"Read(secret/**)", "deny", "Edit", map[string]any{"file_path": "secret/a"}, true},
		{"Read(secret/**)", "deny", "Write", map[string]any{"file_path": "secret/a"}, true},
		{"Read(secret/**)", "allow", "Edit", map[string]any{"file_path": "secret/a"}, false},
		// domains
		{"WebFetch(github.com)", "allow", "WebFetch", map[string]any{"url": "https://github.com/x"}, true},
		{"WebFetch(github.com)", "allow", "WebFetch", map[string]any{"url": "https://api.github.com/x"}, false},
		{"WebFetch(*.example.org)", "allow", "WebFetch", map[string]any{"url": "https://a.b.example.org/"}, true},
		{"WebFetch(*.example.org)", "allow", "WebFetch", map[string]any{"url": "https://example.org/"}, true},
		{"WebFetch(*.example.org)", "allow", "WebFetch", map[string]any{"url": "https://badexample.org/"}, false},
		{"WebFetch(domain:github.com)", "allow", "WebFetch", map[string]any{"url": "http://github.com"}, true},
		{"WebFetch(domain:github.com)", "allow", "WebFetch", map[string]any{"url": "http://gist.github.com"}, false},
		{"WebFetch(github.com)", "allow", "WebFetch", map[string]any{"url": "ftp://github.com/x"}, false},
		{"WebFetch(github.com)", "deny", "WebFetch", map[string]any{"url": "ftp://github.com/x"}, true},
		// patterns
		{"Glob(*.js)", "allow", "Glob", map[string]any{"pattern": "*.js"}, true},
		{"Glob(*.js)", "allow", "Glob", map[string]any{"pattern": "**/*.js"}, false},
		{"Grep(TODO)", "allow", "Grep", map[string]any{"pattern": "TODO"}, true},
		{"Grep(TODO)", "allow", "Grep", map[string]any{"pattern": "TODO|rm"}, false},
		{"WebSearch(golang generics)", "allow", "WebSearch", map[string]any{"query": "golang generics"}, true},
		{"Task(general-purpose)", "allow", "Agent", map[string]any{"subagent_type": "general-purpose"}, true},
		// regex
		{"/tool:Bash:git push origin (?!main).*/", "allow", "Bash", map[string]any{"command": "git push origin feature"}, true},
		{"/tool:Bash:git push origin (?!main).*/", "allow", "Bash", map[string]any{"command": "git push origin main"}, false},
		{"/tool:Bash:git .*/", "allow", "Bash", map[string]any{"command": "git status && rm -rf x"}, false},
		{"/tool:Bash:rm .*/", "deny", "Bash", map[string]any{"command": "ls && rm -rf x"}, true},
		{"/tool:bash:rm .*/", "deny", "Bash", map[string]any{"command": "rm -rf x"}, true},
		{"/tool:Read:/etc/.*/", "deny", "Read", map[string]any{"file_path": "/etc/passwd"}, true},
		{"/tool:Read:/etc/.*/", "allow", "Read", map[string]any{"file_path": "/etc/passwd"}, true},
		{"/tool:Read:etc/.*/", "allow", "Read", map[string]any{"file_path": "/etc/passwd"}, false},
		{"/tool:WebFetch:https://github\\.com/.*/", "allow", "WebFetch", map[string]any{"url": "https://github.com/a"}, true},
		{"/tool:mcp__x__y:.*/", "allow", "mcp__x__y", map[string]any{"b": 1, "a": "z"}, true},
		{`/tool:mcp__x__y:\{"a":"z","b":1\}/`, "allow", "mcp__x__y", map[string]any{"b": 1, "a": "z"}, true},
		{"/tool:Bash:git status/", "allow", "Bash", map[string]any{"command": "git status\nrm -rf /"}, false},
		{"/tool:Bash:(a+)+b/", "deny", "Bash", map[string]any{"command": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!"}, true},
		{"/tool:Bash:(a+)+b/", "allow", "Bash", map[string]any{"command": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!"}, false},
		// calls that cannot be understood
		{"Bash(ls:*)", "deny", "Bash", map[string]any{"command": "ls 'unclosed"}, true},
		{"Bash(ls:*)", "allow", "Bash", map[string]any{"command": "ls 'unclosed"}, false},
		{"Bash", "allow", "Bash", map[string]any{"command": "ls 'unclosed"}, true},
		{"Read(src/**)", "deny", "Read", map[string]any{"file_path": 42}, true},
		{"Read(src/**)", "allow", "Read", map[string]any{"file_path": ""}, false},
		{"WebFetch(github.com)", "deny", "WebFetch", map[string]any{"url": "http://[::1"}, true},
		{"WebFetch(github.com)", "allow", "WebFetch", map[string]any{"url": "http://[::1"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.list+"/"+tt.rule, func(t *testing.T) {
			r := mustRule(t, tt.rule)
			c := command.Prepare(tt.tool, tt.input, testEnv)
			if got := r.Match(c, parseList(tt.list)); got != tt.want {
				t.Errorf("%s rule %q .Match(%s %v) = %v, want %v (call err %v)", tt.list, tt.rule, tt.tool, tt.input, got, tt.want, c.Err)
			}
		})
	}
}

func TestCovers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		rules []string
		cmd   string
		want  bool
	}{
		{[]string{"Bash(npm:*)", "Bash(git status:*)"}, "npm test && git status", true},
		{[]string{"Bash(npm:*)"}, "npm test && git status", false},
		{[]string{"Bash"}, "anything 'unclosed", true},
		{[]string{"Bash(git status:*)"}, "git status; rm -rf x", false},
		{[]string{"Bash(git status:*)"}, "git status $(rm x)", false},
		{[]string{"Bash(git status:*)"}, "git status > ~/.bashrc", false},
		{[]string{"Bash(git status:*)"}, "git status > /dev/null 2>&1", true},
		{[]string{"Bash(git status:*)", "Write(out/**)"}, "git status > out/s.txt", true},
		{[]string{"Bash(git status:*)", "Edit(out/**)"}, "git status >> out/s.txt", true},
		{[]string{"Bash(git status:*)", "Write(out/**)"}, "git status > out/../../x", false},
		{[]string{"Bash(npm:*)"}, "sudo npm i", false},
		{[]string{"Bash(npm:*)"}, "timeout 5 npm test", false},
		{[]string{"Bash(npm:*)", "Bash(timeout:*)"}, "timeout 5 npm test", true},
		{[]string{"Bash(echo:*)"}, ":(){ :|:& };:", false},
		{[]string{"Bash(echo:*)"}, "$CMD hi", false},
		{[]string{"Bash(echo:*)"}, "echo $HOME $X", true},
		{[]string{"/tool:Bash:(npm|git) .*/"}, "npm test | git status", true},
		{[]string{"/tool:Bash:(npm|git) .*/"}, "npm test | sh", false},
	}
	for _, tt := range tests {
		var rules []*matcher.Rule
		for _, s := range tt.rules {
			rules = append(rules, mustRule(t, s))
		}
		got, by := matcher.Covers(rules, bash(tt.cmd))
		if got != tt.want {
			t.Errorf("Covers(%q, %q) = %v, want %v", tt.rules, tt.cmd, got, tt.want)
		}
		if got && by == nil {
			t.Errorf("Covers(%q, %q): no deciding rule", tt.rules, tt.cmd)
		}
	}
}

package command_test

import (
	"reflect"
	"testing"

	"vibing/internal/command"
)

func TestParts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		line string
		want []string
	}{
		{"npm test && rm -rf build", []string{"npm test", "rm -rf build"}},
		{"  echo \"a  b\" > out.txt; ls -la | wc -l", []string{`echo "a  b"`, "ls -la", "wc -l"}},
		{"sh -c 'npm test && ls'", []string{"sh -c 'npm test && ls'"}},
		{"echo $(rm x) && git status", []string{"echo $(rm x)", "git status"}},
		{"FOO=1 make build || true", []string{"FOO=1 make build", "true"}},
		{"cd src && { make; make install; }", []string{"cd src", "make", "make install"}},
		{"ls", []string{"ls"}},
		{"echo 'unclosed", nil},
	}
	for _, tt := range tests {
		c := command.Prepare("Bash", map[string]any{"command": tt.line}, testEnv)
		if got := c.Parts(); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Parts(%q) = %q, want %q", tt.line, got, tt.want)
		}
	}
	if got := command.Prepare("Read", map[string]any{"file_path": "x"}, testEnv).Parts(); got != nil {
		t.Errorf("Parts(Read) = %q, want none", got)
	}
}

var testEnv = command.Env{Cwd: "/work/proj", Home: "/home/u"}

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"sort"

	"vibing/internal/matcher"
)

func init() {
	register(subcommand{name: "validate", summary: "check rules; prints the canonical form or why a rule is wrong", run: runValidate})
}

const validateUsage = `Usage: vibing-agent validate RULE...

Checks each rule. A valid rule is printed in its canonical spelling; an
invalid one gets one sentence saying what is wrong and a correct example.
Exit 0 when every rule is valid, 1 when any is not, 2 without rules.

Examples:
  vibing-agent validate 'Bash(npm:*)' 'read(src/**/*.ts)' 'WebFetch(*.example.org)'
  vibing-agent validate '/tool:Bash:git push origin (?!main).*/'
  vibing-agent validate 'Skill(x)'      # invalid: Skill takes no argument
`

func runValidate(_ context.Context, args []string, io stdio) int {
	fs := flag.NewFlagSet("validate", flag.ContinueOnError)
	fs.SetOutput(io.err)
	fs.Usage = func() { fmt.Fprint(io.err, validateUsage); fs.PrintDefaults() }
	registerConfigFlag(fs)
	if err := fs.Parse(args); err != nil {
		return usageExit(err)
	}
	learnTools()
	if fs.NArg() == 0 {
		fmt.Fprintln(io.err, "vibing-agent validate: give at least one RULE")
		fs.Usage()
		return exitUsage
	}
	code := exitOK
	for _, text := range fs.Args() {
		r, err := matcher.ParseRule(text)
		if err != nil {
			var re *matcher.RuleError
			if errors.As(err, &re) {
				fmt.Fprintf(io.out, "invalid: %s\n", re.Error())
			} else {
				fmt.Fprintf(io.out, "invalid: %q: %v\n", text, err)
			}
			code = exitFail
			continue
		}
		fmt.Fprintf(io.out, "ok: %s\n", r.Text)
	}
	return code
}

func sortStrings(s []string) []string { sort.Strings(s); return s }

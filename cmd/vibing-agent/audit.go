//go:build !lean

package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"vibing/internal/audit"
)

func init() {
	registerFull("audit", runAudit)
}

const auditUsage = `Usage: vibing-agent audit [--chat FILE] [--since DURATION] [--limit N] [--json] [--config FILE]

Lists the permission decisions recorded in the audit log, newest first: for
every tool call its time, decision (allow, deny, ask_approved, ask_denied,
ask_timeout; ask_pending for a call whose run ended before it was answered),
tool, action, the rule and source that decided (the same names whoever
decided: deny_list, mode, user:~/.config/vibing/policy.yaml...), via what
(run: a chat's agent; hook: vibing-agent hook in a Claude Code session;
mention: the @-mentions of a message), for answered approvals the
start of the SHA-256 of the input approved (and "edited" when the person
changed it first), and the chat.
The database is audit_path from --config, else $XDG_STATE_HOME/vibing/audit.sqlite.

Flags:
  --chat FILE        only the rows of this chat (relative paths are fine)
  --since DURATION   only rows newer than this: 90s, 30m, 1h, 2d, 1d12h
  --limit N          at most N rows (default 50; 0 means all)
  --json             JSON Lines: one JSON object per row, newest first, with the
                     keys time, chat, session_id, tool, action, decision, rule,
                     source, via, reason, and for answered approvals input_sha256
                     (the full hex digest) and edited, and for rows of this
                     version resumed (decided in a resumed session) and cwd
                     (the working directory its rules resolved in), and when
                     known tool_use_id (the CLI's id of the call), mode and
                     layer (what decided a hook row)
  --config FILE      options (YAML or JSON) written by the editor from setup()
  --what-if RULE     replay the listed calls against each chat's effective policy,
                     with and without RULE, and print those whose outcome RULE
                     would change (the chat must still exist); each call is
                     replayed as it was decided: in a resumed session or a
                     fresh one, from its working directory
  --as LIST          the list --what-if adds RULE to: deny (default), ask, allow
  --export-status    how far the export to the collector is behind: rows
                     exported, waiting (and since when), skipped (SPEC §16)

Subcommands:
  vibing-agent audit verify [--json]   walk the hash chain; name the first row
                                       changed, deleted or inserted (exit 1)
  vibing-agent audit export            send the rows the collector lacks, now

Examples:
  vibing-agent audit
  vibing-agent audit --chat .vibing/chat/chat-20261122-100000.md --since 1h
  vibing-agent audit --since 2d --limit 0 --json | jq -r 'select(.decision=="deny") | .action'
  vibing-agent audit --limit 0 --what-if 'Bash(curl:*)'            # what would this deny break?
  vibing-agent audit --limit 0 --what-if 'Bash(npm:*)' --as allow  # which prompts would it save?
`

func runAudit(ctx context.Context, args []string, io stdio) int {
	if len(args) > 0 {
		switch args[0] {
		case "verify":
			return runAuditVerify(ctx, args[1:], io)
		case "export":
			return runAuditExport(ctx, args[1:], io)
		}
	}
	fs := flag.NewFlagSet("audit", flag.ContinueOnError)
	fs.SetOutput(io.err)
	fs.Usage = func() { fmt.Fprint(io.err, auditUsage) }
	chat := fs.String("chat", "", "only the rows of this chat `FILE`")
	since := fs.String("since", "", "only rows newer than `DURATION`")
	limit := fs.Int("limit", 50, "at most `N` rows; 0 means all")
	asJSON := fs.Bool("json", false, "print JSON Lines")
	whatIfRule := fs.String("what-if", "", "replay with `RULE` added")
	whatIfList := fs.String("as", "deny", "the `LIST` --what-if adds the rule to")
	exportStatus := fs.Bool("export-status", false, "say how far the export to the collector is behind")
	cfgPath := registerConfigFlag(fs)
	if err := fs.Parse(args); err != nil {
		return usageExit(err)
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(io.err, "vibing-agent audit: unexpected argument %q\n\n%s", fs.Arg(0), auditUsage)
		return exitUsage
	}
	if *limit < 0 {
		fmt.Fprintf(io.err, "vibing-agent audit: --limit must be 0 or more, got %d\n", *limit)
		return exitUsage
	}
	q := audit.Query{Chat: *chat, Limit: *limit}
	if *since != "" {
		d, err := parseSince(*since)
		if err != nil {
			fmt.Fprintf(io.err, "vibing-agent audit: %v\n", err)
			return exitUsage
		}
		q.Since = time.Now().Add(-d)
	}
	cfg, err := loadConfig(*cfgPath)
	if err != nil {
		fmt.Fprintf(io.err, "vibing-agent audit: %v\n", err)
		return exitFail
	}
	path := cfg.AuditDB()
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) && !hasHookSpool(path) {
		// Opening would create an empty database; there is nothing to list.
		if !*asJSON {
			fmt.Fprintf(io.out, "No audit entries yet (%s does not exist).\n", path)
		}
		return exitOK
	}
	db, err := audit.Open(path)
	if err != nil {
		fmt.Fprintf(io.err, "vibing-agent audit: %v\n", err)
		return exitFail
	}
	defer db.Close()
	if err := importHookSpool(ctx, db); err != nil {
		// the rows stay in the spool for the next import
		fmt.Fprintf(io.err, "vibing-agent audit: warning: %v\n", err)
	}
	if *exportStatus {
		return printExportStatus(ctx, db, *asJSON, io)
	}
	entries, err := db.Query(ctx, q)
	if err != nil {
		fmt.Fprintf(io.err, "vibing-agent audit: %v\n", err)
		return exitFail
	}
	if *whatIfRule != "" {
		return whatIf(io.out, io.err, cfg, *cfgPath, *whatIfRule, *whatIfList, entries)
	}
	if *asJSON {
		enc := json.NewEncoder(io.out)
		for _, e := range entries {
			if err := enc.Encode(e); err != nil {
				fmt.Fprintf(io.err, "vibing-agent audit: %v\n", err)
				return exitFail
			}
		}
		return exitOK
	}
	printAuditTable(io.out, entries)
	return exitOK
}

// parseSince parses a Go duration with an extra d (day) unit: 2d, 1d12h.
func parseSince(s string) (time.Duration, error) {
	bad := fmt.Errorf("--since %q is not a duration (examples: 90s, 30m, 1h, 2d, 1d12h)", s)
	var total time.Duration
	rest := s
	if i := strings.IndexByte(rest, 'd'); i >= 0 {
		days, err := strconv.ParseFloat(rest[:i], 64)
		if err != nil || days < 0 || days > 106000 {
			return 0, bad
		}
		total = time.Duration(days * float64(24*time.Hour))
		rest = rest[i+1:]
	}
	if rest != "" {
		d, err := time.ParseDuration(rest)
		if err != nil || d < 0 {
			return 0, bad
		}
		total += d
	}
	if total <= 0 {
		return 0, fmt.Errorf("--since %q must be longer than zero", s)
	}
	return total, nil
}

// printAuditTable writes entries as aligned columns, one line each.
func printAuditTable(w io.Writer, entries []audit.Entry) {
	if len(entries) == 0 {
		fmt.Fprintln(w, "No matching audit entries.")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TIME\tDECISION\tTOOL\tACTION\tRULE\tSOURCE\tVIA\tINPUT\tCHAT")
	for _, e := range entries {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n",
			e.Time.Local().Format("2006-01-02 15:04:05"), e.Decision, cell(e.Tool), cell(e.Action, 60),
			cell(e.Rule), cell(e.Source), cell(e.Via), inputCell(e), cell(e.Chat))
	}
	tw.Flush()
}

// inputCell shows the start of the approved input's SHA-256, and whether the
// person edited it ("-" for calls nobody was asked about).
func inputCell(e audit.Entry) string {
	if e.InputSHA256 == "" {
		return "-"
	}
	s := "sha256:" + e.InputSHA256[:min(12, len(e.InputSHA256))]
	if e.Edited {
		s += " edited"
	}
	return s
}

// cell makes a value fit one table cell: no tabs or line breaks, "-" when
// empty, and at most max runes when max is given.
func cell(s string, max ...int) string {
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		return "-"
	}
	if len(max) > 0 {
		if r := []rune(s); len(r) > max[0] {
			return string(r[:max[0]-1]) + "…"
		}
	}
	return s
}

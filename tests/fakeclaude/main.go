// Command fakeclaude is a scripted stand-in for the claude CLI: it speaks the
// stream-json control protocol on stdio and follows the script file named by
// $FAKECLAUDE_SCRIPT, one step per line. Everything it receives (and its
// arguments) is appended to $FAKECLAUDE_LOG as JSON Lines, so a test can
// assert what the runner answered.
//
// Steps:
//
//	init                     wait for the initialize request, acknowledge it, emit system/init
//	init_error               answer initialize with an error
//	prompt                   wait for the user message
//	text WORDS...            emit an assistant text block
//	tool ID NAME JSON        emit an assistant tool_use block
//	hook ID NAME JSON        send a PreToolUse hook_callback and wait for its answer
//	hooks ID NAME JSON ; ... send several hook_callbacks at once, then wait for all answers
//	canuse ID NAME JSON      send can_use_tool and wait for its answer
//	send_hook ID NAME JSON   send a PreToolUse hook_callback without waiting for its answer
//	send_canuse ID NAME JSON send can_use_tool without waiting for its answer
//	cwd DIR                  later hook_callback inputs carry "cwd": DIR (where the shell is)
//	cancel ID                withdraw request req-ID with a control_cancel_request
//	await ID...              wait for the answers to req-ID... (sent by send_hook/send_canuse)
//	result                   emit a success result
//	wait_eof                 wait until stdin closes
//	wait_interrupt           wait for an interrupt request, acknowledge it, emit an error result
//	spawn                    start "sleep 300" in the process group (and log its pid)
//	tool_group               start "sleep 300" in a process group of its own, as the Bash tool does
//	daemon                   leave "sleep 300" running in a session of its own with an empty
//	                         environment (a background server that forgot where it came from)
//	sleep MS                 sleep
//	hang                     ignore everything and sleep forever
//	garbage                  write a line that is not JSON
//	bigline BYTES            write one JSON line of that size
//	bigresult ID BYTES       emit a tool_result for ID whose content is BYTES of 100-byte lines
//	partial                  write half a JSON line without newline
//	stderr TEXT              write TEXT to stderr
//	crash                    kill itself with SIGKILL
//	exit CODE                exit with CODE
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

const sessionID = "fake-session-0001"

var (
	outMu   sync.Mutex
	out     = bufio.NewWriterSize(os.Stdout, 1<<16)
	logMu   sync.Mutex
	logFile *os.File
	inbox   = make(chan map[string]any, 64)
	eof     = make(chan struct{})
	hookCwd string // the "cwd" of hook inputs; none when empty
)

func main() {
	if p := os.Getenv("FAKECLAUDE_LOG"); p != "" {
		f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			fatal("log: %v", err)
		}
		logFile = f
	}
	record(map[string]any{"type": "args", "args": os.Args[1:], "pgid": pgid(), "pid": os.Getpid(),
		"marker": os.Getenv("VIBING_RUN_MARKER")})
	script, err := os.ReadFile(os.Getenv("FAKECLAUDE_SCRIPT"))
	if err != nil {
		fatal("script: %v", err)
	}
	go readStdin()
	for _, line := range strings.Split(string(script), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		step(line)
	}
	os.Exit(0)
}

func pgid() int { g, _ := syscall.Getpgid(0); return g }

func fatal(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "fakeclaude: "+format+"\n", a...)
	os.Exit(3)
}

func record(v map[string]any) {
	if logFile == nil {
		return
	}
	logMu.Lock()
	defer logMu.Unlock()
	data, _ := json.Marshal(v)
	logFile.Write(append(data, '\n'))
}

func readStdin() {
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<16), 1<<24)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			record(map[string]any{"type": "bad_input", "line": sc.Text()})
			continue
		}
		record(m)
		inbox <- m
	}
	close(eof)
}

func emit(v any) {
	data, _ := json.Marshal(v)
	outMu.Lock()
	defer outMu.Unlock()
	out.Write(append(data, '\n'))
	out.Flush()
}

func raw(s string) {
	outMu.Lock()
	defer outMu.Unlock()
	out.WriteString(s)
	out.Flush()
}

// next waits for the next stdin message; stdin closing ends the fake.
func next() map[string]any {
	select {
	case m := <-inbox:
		return m
	case <-eof:
		select {
		case m := <-inbox:
			return m
		default:
		}
		fmt.Fprintln(os.Stderr, "fakeclaude: stdin closed")
		os.Exit(0)
	}
	return nil
}

func sub(m map[string]any) string {
	r, _ := m["request"].(map[string]any)
	s, _ := r["subtype"].(string)
	return s
}

func step(line string) {
	cmd, arg, _ := strings.Cut(line, " ")
	switch cmd {
	case "init", "init_error":
		for {
			m := next()
			if m["type"] == "control_request" && sub(m) == "initialize" {
				id := m["request_id"]
				if cmd == "init_error" {
					emit(map[string]any{"type": "control_response", "response": map[string]any{"subtype": "error", "request_id": id, "error": "no hooks today"}})
					return
				}
				emit(map[string]any{"type": "control_response", "response": map[string]any{"subtype": "success", "request_id": id, "response": map[string]any{}}})
				emit(map[string]any{"type": "system", "subtype": "init", "session_id": sessionID, "tools": []string{"Bash", "Read"}})
				return
			}
		}
	case "prompt":
		for next()["type"] != "user" {
		}
	case "text":
		emit(assistant(map[string]any{"type": "text", "text": arg}))
	case "tool":
		id, name, input := toolArgs(arg)
		emit(assistant(map[string]any{"type": "tool_use", "id": id, "name": name, "input": input}))
	case "hook", "hooks", "canuse", "send_hook", "send_canuse":
		var ids []string
		for _, part := range strings.Split(arg, " ; ") {
			id, name, input := toolArgs(part)
			var req map[string]any
			if strings.HasSuffix(cmd, "canuse") {
				req = map[string]any{"subtype": "can_use_tool", "tool_name": name, "input": input, "tool_use_id": id,
					"permission_suggestions": []any{map[string]any{"type": "addRules"}}}
			} else {
				in := map[string]any{"hook_event_name": "PreToolUse", "tool_name": name, "tool_input": input, "tool_use_id": id}
				if hookCwd != "" {
					in["cwd"] = hookCwd
				}
				req = map[string]any{"subtype": "hook_callback", "callback_id": "vibing_pre_tool_use", "tool_use_id": id, "input": in}
			}
			emit(map[string]any{"type": "control_request", "request_id": "req-" + id, "request": req})
			ids = append(ids, "req-"+id)
		}
		if !strings.HasPrefix(cmd, "send_") {
			waitAnswers(ids)
		}
	case "cwd":
		hookCwd = arg
	case "cancel":
		emit(map[string]any{"type": "control_cancel_request", "request_id": "req-" + arg})
	case "await":
		var ids []string
		for _, id := range strings.Fields(arg) {
			ids = append(ids, "req-"+id)
		}
		waitAnswers(ids)
	case "result":
		emit(map[string]any{"type": "result", "subtype": "success", "is_error": false, "session_id": sessionID,
			"total_cost_usd": 0.0012, "duration_ms": 42, "result": "ok"})
	case "wait_eof":
		<-eof
	case "wait_interrupt":
		for {
			m := next()
			if m["type"] == "control_request" && sub(m) == "interrupt" {
				emit(map[string]any{"type": "control_response", "response": map[string]any{"subtype": "success", "request_id": m["request_id"], "response": map[string]any{}}})
				emit(map[string]any{"type": "result", "subtype": "error_during_execution", "is_error": true, "session_id": sessionID})
				return
			}
		}
	case "spawn":
		c := exec.Command("sleep", "300")
		if err := c.Start(); err != nil {
			fatal("spawn: %v", err)
		}
		record(map[string]any{"type": "spawned", "pid": c.Process.Pid})
	case "tool_group":
		c := exec.Command("sleep", "300")
		c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := c.Start(); err != nil {
			fatal("tool_group: %v", err)
		}
		record(map[string]any{"type": "spawned", "pid": c.Process.Pid})
	case "daemon":
		out, err := exec.Command("sh", "-c", "env -i setsid sleep 300 </dev/null >/dev/null 2>&1 & echo $!").Output()
		if err != nil {
			fatal("daemon: %v", err)
		}
		pid, _ := strconv.Atoi(strings.TrimSpace(string(out)))
		record(map[string]any{"type": "spawned", "pid": pid})
	case "sleep":
		ms, _ := strconv.Atoi(arg)
		time.Sleep(time.Duration(ms) * time.Millisecond)
	case "hang":
		signalIgnore()
		for { // not select{}: once stdin closed, Go would end a fake with nothing left to wait for
			time.Sleep(time.Hour)
		}
	case "garbage":
		raw("this is not json at all\n")
	case "bigline":
		n, _ := strconv.Atoi(arg)
		raw(`{"type":"assistant","message":{"content":[{"type":"text","text":"` + strings.Repeat("x", n) + `"}]}}` + "\n")
	case "bigresult":
		id, size, _ := strings.Cut(arg, " ")
		n, _ := strconv.Atoi(size)
		line := strings.Repeat("x", 99) + "\n"
		content := strings.Repeat(line, n/len(line))
		emit(map[string]any{"type": "user", "session_id": sessionID, "parent_tool_use_id": nil,
			"message": map[string]any{"role": "user", "content": []any{map[string]any{
				"type": "tool_result", "tool_use_id": id, "content": content, "is_error": false}}}})
	case "partial":
		raw(`{"type":"assistant","message":{"con`)
	case "stderr":
		fmt.Fprintln(os.Stderr, arg)
	case "crash":
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {}
	case "exit":
		code, _ := strconv.Atoi(arg)
		os.Exit(code)
	default:
		fatal("unknown step %q", line)
	}
}

func signalIgnore() { // a hung CLI also ignores polite signals
	signal.Ignore(syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
}

func assistant(block map[string]any) map[string]any {
	return map[string]any{"type": "assistant", "session_id": sessionID, "parent_tool_use_id": nil,
		"message": map[string]any{"role": "assistant", "content": []any{block}}}
}

func toolArgs(s string) (id, name string, input map[string]any) {
	parts := strings.SplitN(strings.TrimSpace(s), " ", 3)
	if len(parts) < 3 {
		fatal("tool step needs ID NAME JSON: %q", s)
	}
	if err := json.Unmarshal([]byte(parts[2]), &input); err != nil {
		fatal("tool input: %v", err)
	}
	return parts[0], parts[1], input
}

// waitAnswers waits for control responses to ids and reports each as a
// tool_result, the way the CLI would.
func waitAnswers(ids []string) {
	want := map[string]bool{}
	for _, id := range ids {
		want[id] = true
	}
	for len(want) > 0 {
		m := next()
		if m["type"] != "control_response" {
			continue
		}
		resp, _ := m["response"].(map[string]any)
		id, _ := resp["request_id"].(string)
		if !want[id] {
			continue
		}
		delete(want, id)
		body, _ := resp["response"].(map[string]any)
		allow, msg := verdict(body)
		toolID := strings.TrimPrefix(id, "req-")
		content := "ran"
		if !allow {
			content = msg
		}
		emit(map[string]any{"type": "user", "session_id": sessionID, "message": map[string]any{"role": "user",
			"content": []any{map[string]any{"type": "tool_result", "tool_use_id": toolID, "content": content, "is_error": !allow}}}})
	}
}

func verdict(body map[string]any) (bool, string) {
	if h, ok := body["hookSpecificOutput"].(map[string]any); ok {
		reason, _ := h["permissionDecisionReason"].(string)
		return h["permissionDecision"] == "allow", reason
	}
	msg, _ := body["message"].(string)
	return body["behavior"] == "allow", msg
}

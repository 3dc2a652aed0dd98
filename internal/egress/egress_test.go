package egress_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"vibing/internal/egress"
	"vibing/internal/frontmatter"
	"vibing/internal/session"
)

func hosts(t *testing.T, s frontmatter.Settings, extra ...string) *egress.Hosts {
	t.Helper()
	s.Vibing = true
	e, err := session.New(nil, s, session.Options{Cwd: t.TempDir(), Home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	return egress.NewHosts(e, []string{egress.DefaultAPI, "http://127.0.0.1:8123", "http://localhost:4000"}, extra)
}

// TestHostsDecide: what passes the proxy and what does not, with the
// rule or setting that decided.
func TestHostsDecide(t *testing.T) {
	t.Parallel()
	s := frontmatter.Settings{
		Allow: []string{"WebFetch(docs.example.org)", "WebFetch(*.pkg.example.net)", "Bash(curl https://api.example.com/v1:*)",
			"Bash(git clone https://code.example.com/team/repo)", "WebFetch", "Bash(npm test:*)"},
		Deny: []string{"WebFetch(evil.example.org)", "WebFetch(*.leak.example)", "WebFetch(169.254.169.254)"},
		Ask:  []string{"WebFetch(paste.example.com)"},
		Mode: "bypassPermissions",
	}
	h := hosts(t, s, "mirror.example.io", "*.cdn.example.io")
	tests := []struct {
		name  string
		host  string
		port  int
		allow bool
		rule  string
		src   string
	}{
		// everyday: these pass
		{"the default API", "api.anthropic.com", 443, true, "", "api"},
		{"the API of ANTHROPIC_BASE_URL", "127.0.0.1", 8123, true, "", "api"},
		{"a WebFetch allow rule", "docs.example.org", 443, true, "WebFetch(docs.example.org)", "allow_list"},
		{"a WebFetch allow rule, plain http", "docs.example.org", 80, true, "WebFetch(docs.example.org)", "allow_list"},
		{"a wildcard allow rule", "a.pkg.example.net", 443, true, "WebFetch(*.pkg.example.net)", "allow_list"},
		{"a Bash allow rule's URL", "api.example.com", 443, true, "Bash(curl https://api.example.com/v1:*)", "allow_list"},
		{"a Bash allow rule's git remote", "code.example.com", 443, true, "Bash(git clone https://code.example.com/team/repo)", "allow_list"},
		{"sandbox_hosts", "mirror.example.io", 443, true, "mirror.example.io", "sandbox_hosts"},
		{"sandbox_hosts wildcard", "x.cdn.example.io", 443, true, "*.cdn.example.io", "sandbox_hosts"},
		{"sandbox_hosts wildcard, the domain itself", "cdn.example.io", 443, true, "*.cdn.example.io", "sandbox_hosts"},
		// attacks: these do not
		{"a deny rule", "evil.example.org", 443, false, "WebFetch(evil.example.org)", "deny_list"},
		{"a deny rule's subdomain", "x.evil.example.org", 443, false, "WebFetch(evil.example.org)", "deny_list"},
		{"a wildcard deny", "a.b.leak.example", 443, false, "WebFetch(*.leak.example)", "deny_list"},
		{"the metadata address", "169.254.169.254", 80, false, "WebFetch(169.254.169.254)", "deny_list"},
		{"an ask rule", "paste.example.com", 443, false, "WebFetch(paste.example.com)", "ask_list"},
		{"no rule names it (a bare WebFetch allow does not)", "unknown.example", 443, false, "", egress.Unknown},
		{"the API host at another port", "127.0.0.1", 22, false, "", egress.Unknown},
		{"loopback by name", "localhost", 8123, false, "", egress.Unknown},
		{"an allowed host's look-alike", "docs.example.org.evil.example", 443, false, "", egress.Unknown},
		{"a sibling of an exact allow", "x.docs.example.org", 443, false, "", egress.Unknown},
		{"a host only a Bash allow without a URL names", "npm", 443, false, "", egress.Unknown},
		{"sandbox_hosts look-alike", "evilcdn.example.io", 443, false, "", egress.Unknown},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			v := h.Decide(tt.host, tt.port)
			if v.Allow != tt.allow || v.Rule != tt.rule || !strings.HasPrefix(v.Source, tt.src) || v.Reason == "" {
				t.Errorf("Decide(%q, %d) = %+v, want allow %v rule %q source %q", tt.host, tt.port, v, tt.allow, tt.rule, tt.src)
			}
		})
	}
}

// upstream is an HTTP server on the loopback that answers its name.
func upstream(t *testing.T, name string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "%s %s", name, r.URL.Path)
	})}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { srv.Close() })
	return l.Addr().String()
}

// startProxy serves p on a Unix socket and returns a client through it.
func startProxy(t *testing.T, p *egress.Proxy) *http.Client {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "p.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = p.Serve(l) }()
	t.Cleanup(func() { p.Close() })
	return &http.Client{Transport: &http.Transport{
		Proxy: http.ProxyURL(mustURL("http://proxy.invalid")),
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "unix", sock)
		},
	}}
}

// TestProxy: allowed connections pass (plain http and CONNECT), refused
// ones get 403 with the reason and never reach the host, each one is a
// row, and a row that cannot be stored refuses the connection.
func TestProxy(t *testing.T) {
	t.Parallel()
	ok, other := upstream(t, "ok"), upstream(t, "other")
	var mu sync.Mutex
	var rows []egress.Connection
	var failRecord bool
	p := &egress.Proxy{
		Decide: func(host string, port int) egress.Verdict {
			if fmt.Sprintf("%s:%d", host, port) == ok {
				return egress.Verdict{Allow: true, Rule: "WebFetch(x)", Source: "allow_list", Reason: "allowed"}
			}
			return egress.Verdict{Source: egress.Unknown, Reason: "no rule names " + host}
		},
		Record: func(c egress.Connection) error {
			mu.Lock()
			defer mu.Unlock()
			if failRecord {
				return errors.New("disk full")
			}
			rows = append(rows, c)
			return nil
		},
	}
	c := startProxy(t, p)
	get := func(url string) (int, string) {
		t.Helper()
		resp, err := c.Get(url)
		if err != nil {
			t.Fatalf("GET %s: %v", url, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get("http://" + ok + "/a"); code != 200 || body != "ok /a" {
		t.Errorf("allowed plain GET = %d %q", code, body)
	}
	if code, body := get("http://" + other + "/b"); code != 403 || !strings.Contains(body, "no rule names 127.0.0.1") ||
		!strings.Contains(body, "nobody can be asked") {
		t.Errorf("refused plain GET = %d %q", code, body)
	}
	// CONNECT, as for TLS: a raw tunnel
	tunnel := func(addr string) string {
		t.Helper()
		conn, err := c.Transport.(*http.Transport).DialContext(context.Background(), "", "")
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		fmt.Fprintf(conn, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\nGET /t HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", addr, addr)
		b, _ := io.ReadAll(bufio.NewReader(conn))
		return string(b)
	}
	if out := tunnel(ok); !strings.HasPrefix(out, "HTTP/1.1 200 Connection established") || !strings.HasSuffix(out, "ok /t") {
		t.Errorf("allowed CONNECT = %q", out)
	}
	if out := tunnel(other); !strings.HasPrefix(out, "HTTP/1.1 403") || strings.Contains(out, "other /t") {
		t.Errorf("refused CONNECT = %q", out)
	}
	mu.Lock()
	var got []string
	for _, r := range rows {
		got = append(got, fmt.Sprintf("%s %s %v", r.Method, r.Action(), r.Allow))
	}
	failRecord = true
	mu.Unlock()
	want := []string{"GET net:" + ok + " true", "GET net:" + other + " false", "CONNECT net:" + ok + " true", "CONNECT net:" + other + " false"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if code, body := get("http://" + ok + "/c"); code != 403 || !strings.Contains(body, "audit row could not be stored") {
		t.Errorf("GET without its row = %d %q", code, body)
	}
}

// TestProxyAsk: a host no rule names is asked about where a person can
// answer; their verdict stands.
func TestProxyAsk(t *testing.T) {
	t.Parallel()
	ok := upstream(t, "ok")
	var asked []string
	p := &egress.Proxy{
		Decide: func(host string, port int) egress.Verdict {
			return egress.Verdict{Source: egress.Unknown, Reason: "no rule"}
		},
		Ask: func(_ context.Context, host string, port int) egress.Verdict {
			asked = append(asked, fmt.Sprintf("%s:%d", host, port))
			return egress.Verdict{Allow: len(asked) == 1, Source: "person", Reason: "the person answered"}
		},
	}
	c := startProxy(t, p)
	for i, want := range []int{200, 403} {
		resp, err := c.Get("http://" + ok + "/")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("request %d: %d, want %d", i, resp.StatusCode, want)
		}
	}
	if len(asked) != 2 || asked[0] != ok {
		t.Errorf("asked %q", asked)
	}
}

func mustURL(s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		panic(err)
	}
	return u
}

// Close ends tunnels whose host keeps its end open.
func TestProxyCloseEndsTunnels(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			defer c.Close() // held open until the test ends
		}
	}()
	p := &egress.Proxy{Decide: func(string, int) egress.Verdict { return egress.Verdict{Allow: true, Source: "test"} }}
	c := startProxy(t, p)
	conn, err := c.Transport.(*http.Transport).DialContext(context.Background(), "", "")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "CONNECT %s HTTP/1.1\r\nHost: x\r\n\r\n", l.Addr())
	line, _ := bufio.NewReader(conn).ReadString('\n')
	if !strings.HasPrefix(line, "HTTP/1.1 200") {
		t.Fatalf("CONNECT = %q", line)
	}
	done := make(chan struct{})
	go func() { p.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not return while a tunnel's host kept it open")
	}
}

// TestCheckAddr: a host name that leads to a local address or to one a
// deny rule names is refused after the lookup; an address named itself was
// decided already.
func TestCheckAddr(t *testing.T) {
	t.Parallel()
	h := hosts(t, frontmatter.Settings{Deny: []string{"WebFetch(10.1.2.3)"}, Allow: []string{"WebFetch(dev.localhost)", "WebFetch(*.corp.example)"}})
	tests := []struct {
		host, ip string
		refused  bool
	}{
		{"rebind.example", "127.0.0.1", true},
		{"rebind.example", "::1", true},
		{"metadata.example", "169.254.169.254", true},
		{"any.example", "0.0.0.0", true},
		{"denied-by-address.example", "10.1.2.3", true},
		{"docs.example.org", "93.184.216.34", false},
		{"127.0.0.1", "127.0.0.1", false}, // the API host, decided by its address
		{"10.9.9.9", "10.9.9.9", false},
		{"localhost", "127.0.0.1", false},     // the API of ANTHROPIC_BASE_URL (port 4000)
		{"dev.localhost", "127.0.0.1", false}, // an allow rule names it
		{"a.corp.example", "127.0.0.1", true}, // a wildcard does not
		{"dev.localhost", "10.1.2.3", true},   // a deny rule names the address
	}
	for _, tt := range tests {
		port := 443
		if tt.host == "localhost" {
			port = 4000
		}
		refused, why := h.CheckAddr(tt.host, port, net.ParseIP(tt.ip))
		if refused != tt.refused || refused && why == "" {
			t.Errorf("CheckAddr(%q, %s) = %v %q, want %v", tt.host, tt.ip, refused, why, tt.refused)
		}
	}
}

package egress

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Verdict is the decision on one connection.
type Verdict struct {
	Allow  bool
	Rule   string // the rule or setting that decided ("" when none did)
	Source string // where it comes from: api, allow_list, sandbox_hosts, deny_list, ask_list, person, none
	Reason string // one sentence
}

// Connection is one connection the sandbox asked for, with its verdict:
// one audit row.
type Connection struct {
	Time   time.Time
	Host   string
	Port   int
	Method string // CONNECT, or the HTTP method of a plain request
	Verdict
}

// Action is the audit row's action for a connection.
func (c Connection) Action() string {
	return "net:" + net.JoinHostPort(c.Host, strconv.Itoa(c.Port))
}

// Proxy lets the sandbox's connections out, one decision each.
type Proxy struct {
	// Decide decides a host and port without asking anyone.
	Decide func(host string, port int) Verdict
	// Ask asks the person about a host no rule names and returns the
	// verdict; nil where nobody can be asked (the connection is refused).
	Ask func(ctx context.Context, host string, port int) Verdict
	// Record stores the audit row; a row that cannot be stored refuses
	// the connection. nil: not recorded.
	Record func(Connection) error
	// Dial reaches the outside (nil: net.Dialer).
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// CheckAddr, when set, refuses a connection by the address its host
	// name led to, with the reason.
	CheckAddr func(host string, port int, ip net.IP) (refused bool, reason string)

	mu     sync.Mutex
	ln     net.Listener
	conns  map[net.Conn]bool
	closed bool
	wg     sync.WaitGroup
	ctx    context.Context
	cancel context.CancelFunc
}

// Unknown is the Source of a host no rule names: the verdict asks.
const Unknown = "none"

// Serve accepts connections on l until Close.
func (p *Proxy) Serve(l net.Listener) error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return net.ErrClosed
	}
	p.ln = l
	p.conns = map[net.Conn]bool{}
	p.ctx, p.cancel = context.WithCancel(context.Background())
	p.mu.Unlock()
	for {
		c, err := l.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return nil
			}
			return err
		}
		if !p.track(c, true) {
			c.Close()
			return nil
		}
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			defer p.track(c, false)
			defer c.Close()
			p.serveConn(c)
		}()
	}
}

func (p *Proxy) track(c net.Conn, add bool) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if add {
		if p.closed {
			return false
		}
		p.conns[c] = true
		return true
	}
	delete(p.conns, c)
	return true
}

// Close stops the proxy and ends every connection through it.
func (p *Proxy) Close() error {
	p.mu.Lock()
	p.closed = true
	if p.cancel != nil {
		p.cancel()
	}
	if p.ln != nil {
		p.ln.Close()
	}
	for c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
	return nil
}

// serveConn reads the requests of one client connection.
func (p *Proxy) serveConn(c net.Conn) {
	br := bufio.NewReader(c)
	for {
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		if req.Method == http.MethodConnect {
			p.connect(c, br, req)
			return
		}
		if !p.plain(c, req) {
			return
		}
	}
}

// target is the host and port a request names.
func target(hostport, scheme string) (string, int, error) {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		host, port = hostport, "80"
		if scheme == "https" {
			port = "443"
		}
	}
	n, err := strconv.Atoi(port)
	if err != nil || n <= 0 || n > 65535 || host == "" {
		return "", 0, fmt.Errorf("%q is not a host and port", hostport)
	}
	return strings.ToLower(strings.TrimSuffix(strings.Trim(host, "[]"), ".")), n, nil
}

// verdict decides (and asks, where it may) and records the row.
func (p *Proxy) verdict(host string, port int, method string) Verdict {
	v := p.Decide(host, port)
	if !v.Allow && v.Source == Unknown {
		if p.Ask != nil {
			v = p.Ask(p.ctx, host, port)
		} else {
			v.Reason += "; nobody can be asked here, so it is refused (allow it with a WebFetch(" + host + ") rule or sandbox_hosts)"
		}
	}
	if p.Record != nil {
		if err := p.Record(Connection{Time: time.Now(), Host: host, Port: port, Method: method, Verdict: v}); err != nil {
			return Verdict{Source: v.Source, Rule: v.Rule, Reason: fmt.Sprintf("the audit row could not be stored: %v", err)}
		}
	}
	return v
}

func refuse(c net.Conn, status int, msg string) {
	body := "vibing sandbox: " + msg + "\n"
	fmt.Fprintf(c, "HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s",
		status, http.StatusText(status), len(body), body)
}

// dial reaches host:port; Close ends the connection too. The caller
// closes it with release.
func (p *Proxy) dial(host string, port int) (net.Conn, error) {
	dial := p.Dial
	if dial == nil {
		d := &net.Dialer{Timeout: 30 * time.Second}
		dial = d.DialContext
	}
	c, err := dial(p.ctx, "tcp", net.JoinHostPort(host, strconv.Itoa(port)))
	if err != nil {
		return nil, err
	}
	if p.CheckAddr != nil {
		if a, ok := c.RemoteAddr().(*net.TCPAddr); ok {
			if refused, why := p.CheckAddr(host, port, a.IP); refused {
				c.Close()
				return nil, errors.New(why)
			}
		}
	}
	if !p.track(c, true) {
		c.Close()
		return nil, net.ErrClosed
	}
	return c, nil
}

// release closes a connection dial made.
func (p *Proxy) release(c net.Conn) {
	c.Close()
	p.track(c, false)
}

// connect serves CONNECT host:port: a tunnel when allowed.
func (p *Proxy) connect(c net.Conn, br *bufio.Reader, req *http.Request) {
	host, port, err := target(req.Host, "https")
	if err != nil {
		refuse(c, http.StatusBadRequest, err.Error())
		return
	}
	v := p.verdict(host, port, req.Method)
	if !v.Allow {
		refuse(c, http.StatusForbidden, v.Reason)
		return
	}
	up, err := p.dial(host, port)
	if err != nil {
		refuse(c, http.StatusBadGateway, err.Error())
		return
	}
	defer p.release(up)
	if _, err := io.WriteString(c, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
		return
	}
	done := make(chan struct{}, 2)
	go func() {
		// what the client sent after its CONNECT is in br
		_, _ = io.Copy(up, br)
		closeWrite(up)
		done <- struct{}{}
	}()
	go func() {
		_, _ = io.Copy(c, up)
		closeWrite(c)
		done <- struct{}{}
	}()
	<-done
	<-done
}

func closeWrite(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
	}
}

// hopHeaders are not passed on by a proxy (RFC 9110 7.6.1).
var hopHeaders = []string{"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate", "Proxy-Authorization", "Te", "Trailer", "Upgrade"}

// plain serves one http:// request in absolute form, and reports whether
// the client connection may carry another.
func (p *Proxy) plain(c net.Conn, req *http.Request) bool {
	if req.URL == nil || req.URL.Scheme != "http" || req.URL.Host == "" {
		refuse(c, http.StatusBadRequest, "a proxy request names an absolute http:// URL (use CONNECT for anything else)")
		return false
	}
	host, port, err := target(req.URL.Host, "http")
	if err != nil {
		refuse(c, http.StatusBadRequest, err.Error())
		return false
	}
	v := p.verdict(host, port, req.Method)
	if !v.Allow {
		refuse(c, http.StatusForbidden, v.Reason)
		return false
	}
	up, err := p.dial(host, port)
	if err != nil {
		refuse(c, http.StatusBadGateway, err.Error())
		return false
	}
	defer p.release(up)
	for _, h := range hopHeaders {
		req.Header.Del(h)
	}
	req.Close = true // one request per connection to the host: the next may go elsewhere
	if err := req.Write(up); err != nil {
		refuse(c, http.StatusBadGateway, err.Error())
		return false
	}
	resp, err := http.ReadResponse(bufio.NewReader(up), req)
	if err != nil {
		refuse(c, http.StatusBadGateway, err.Error())
		return false
	}
	defer resp.Body.Close()
	resp.Close = true
	_ = resp.Write(flushWriter{c})
	return false
}

// flushWriter passes each write straight on (a streamed answer arrives as
// it comes).
type flushWriter struct{ w io.Writer }

func (f flushWriter) Write(b []byte) (int, error) { return f.w.Write(b) }

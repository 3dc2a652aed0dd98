package egress

import (
	"io"
	"net"
	"strconv"
	"strings"
)

// Forward hands every connection l accepts (127.0.0.1 inside the sandbox)
// to the proxy's Unix socket, until l is closed.
func Forward(l net.Listener, socket string) error {
	for {
		c, err := l.Accept()
		if err != nil {
			return err
		}
		go func() {
			defer c.Close()
			up, err := net.Dial("unix", socket)
			if err != nil {
				return
			}
			defer up.Close()
			done := make(chan struct{}, 2)
			go func() { _, _ = io.Copy(up, c); closeWrite(up); done <- struct{}{} }()
			go func() { _, _ = io.Copy(c, up); closeWrite(c); done <- struct{}{} }()
			<-done
			<-done
		}()
	}
}

// proxyVars are the variables that send programs through a proxy.
var proxyVars = []string{"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"}

// Env is env with every proxy variable naming the forwarder at port and
// no exception to it (NO_PROXY dropped: inside, even 127.0.0.1 is reached
// through the proxy, the loopback there being the sandbox's own).
func Env(env []string, port int) []string {
	out := env[:0:0]
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.EqualFold(name, "NO_PROXY"):
			continue
		case contains(proxyVars, name):
			continue
		}
		out = append(out, kv)
	}
	url := "http://127.0.0.1:" + strconv.Itoa(port)
	for _, v := range proxyVars {
		out = append(out, v+"="+url)
	}
	return out
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

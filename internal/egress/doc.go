// Package egress is the sandbox's only way to the network (SPEC §14).
//
// The sandbox has a network namespace of its own: nothing in it reaches a
// host, a port or an abstract Unix socket outside. Its one way out is a
// Unix socket bound into it, on which Proxy (running in vibing-agent,
// outside) speaks HTTP: CONNECT host:port for TLS and anything else, and
// plain http:// requests in absolute form. Inside, Forward listens on
// 127.0.0.1 of the sandbox's own loopback and hands every connection to
// that socket; HTTP_PROXY, HTTPS_PROXY and ALL_PROXY name it, so programs
// that honour them go through it and those that do not reach nothing.
//
// Every connection is decided once, by host and port (Hosts.Decide): the
// API host at the API's port, the hosts the allow rules name (WebFetch host
// rules and the hosts of Bash allow rules) and sandbox_hosts pass; a host a
// deny or ask rule names is refused; any other host is asked about where a
// person can answer (Proxy.Ask) and refused elsewhere. Each decision is an
// audit row (Proxy.Record).
package egress

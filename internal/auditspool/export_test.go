package auditspool

import "net"

// SetOutside replaces the check that a relay runs outside the caller's
// sandbox (a unit test has no sandbox) and returns the undo.
func SetOutside(f func(*net.UnixConn) bool) func() {
	old := outside
	outside = f
	return func() { outside = old }
}

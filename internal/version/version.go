// Package version holds the version of vibing. The Lua plugin checks that the
// binary it runs reports the same version (lua/vibing/version.lua).
package version

// Version is the release version of vibing (plugin and binary move together).
const Version = "0.1.0"

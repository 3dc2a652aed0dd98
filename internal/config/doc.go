// Package config holds the user's vibing options as the Go side sees them:
// the file that the editor writes from setup() and passes as --config FILE
// (YAML or JSON), with the documented defaults when there is none.
//
// DefaultConfig → Load/Parse → Validate.
package config

package rpc

import (
	"context"
	"strings"
	"testing"
)

func TestHandleRecoversPanic(t *testing.T) {
	methods["boom"] = func(*Host, context.Context, params) (any, error) { panic("kaboom") }
	defer delete(methods, "boom")
	got, err := (&Host{}).Handle(context.Background(), "boom", nil)
	if err == nil || !strings.Contains(err.Error(), "kaboom") {
		t.Fatalf("Handle(boom) = %v, %v, want an internal error naming the panic", got, err)
	}
}

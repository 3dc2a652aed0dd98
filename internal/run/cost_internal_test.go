package run

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestResultCost: a result carries the backend's cost, and none at all
// when the backend reports none (the editor then shows no "$0.0000").
func TestResultCost(t *testing.T) {
	for _, tc := range []struct {
		cost float64
		want string
	}{{0, ""}, {0.0123, `"cost_usd":0.0123`}} {
		b, err := json.Marshal(Output{Type: "result", CostUSD: costOf(Event{CostUSD: tc.cost})})
		if err != nil {
			t.Fatal(err)
		}
		if got := string(b); (tc.want == "") != !strings.Contains(got, "cost_usd") || !strings.Contains(got, tc.want) {
			t.Errorf("cost %v: %s, want %q", tc.cost, got, tc.want)
		}
	}
}

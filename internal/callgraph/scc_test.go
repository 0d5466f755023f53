package callgraph

import (
	"fmt"
	"testing"
)

// TestComponents: a graph with a cycle of three, a self-loop, a chain and
// an isolated node, its components computed by hand.
func TestComponents(t *testing.T) {
	edges := map[string][]string{
		"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, // a → b → c → a, c → d
		"d": {"d", "e"}, // d calls itself
		"e": nil,
		"f": {"e"},
	}
	succ := func(v string) []string { return edges[v] }
	comps := Components([]string{"a", "b", "c", "d", "e", "f"}, succ)
	got := fmt.Sprint(comps)
	if want := "[[e] [d] [c b a] [f]]"; got != want {
		t.Errorf("components %s, want %s", got, want)
	}
	var cyclic []bool
	for _, c := range comps {
		cyclic = append(cyclic, Cyclic(c, succ))
	}
	if got, want := fmt.Sprint(cyclic), "[false true true false]"; got != want {
		t.Errorf("cyclic %s, want %s", got, want)
	}
}

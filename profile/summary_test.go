package profile

import (
	"strings"
	"testing"
)

// TestSummaryLoops: the summary tells a balanced loop, one unbalanced by
// its iterations' index (charged their estimates) and one unbalanced
// across its entries but not by index (charged its mean) apart.
func TestSummaryLoops(t *testing.T) {
	p := &File{Package: "example.com/app", NP: 2, Alpha: 0.1, Loops: []LoopStats{
		{Node: "a/loop@+1:2", PerIterPS: 1000, D: 0.02, Samples: 64, Balanced: true},
		{Node: "b/loop@+1:2", PerIterPS: 1156, D: 3.3, Samples: 128, FirstItersPS: []int64{5000, 2000, 1500, 1200, 1100}, LaterIterPS: 1000},
		{Node: "c/loop@+1:2", PerIterPS: 900, D: 0.4},
	}}
	var b strings.Builder
	if err := p.WriteSummary(&b, 10); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"a/loop@+1:2  1ns per iteration, D=0.020 (64 samples), balanced,",
		"b/loop@+1:2  1.156ns per iteration, D=3.300 (128 samples), unbalanced by iteration: an entry is charged its first 5 iterations' estimates (5ns, 2ns, 1.5ns, 1.2ns, … 1 more), then 1ns each,",
		"c/loop@+1:2  0.9ns per iteration, D=0.400 (0 samples), unbalanced (its iterations differ: charged at their mean),",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, b.String())
		}
	}
}

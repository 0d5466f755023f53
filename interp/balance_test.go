package interp

import (
	"strings"
	"testing"
)

// TestBalanceText: the rank whose share of the mean compute differs most
// between the model and the plain runs, said past a fifth of the mean.
// Hand-computed: the model's ranks 40 and 40 ms (shares 1, 1), the
// program's 15 and 65 (shares 0.375, 1.625): rank 0 differs by 0.625.
func TestBalanceText(t *testing.T) {
	const ms = 1_000_000_000 // ps
	got := balanceText(2, []int64{40 * ms, 40 * ms}, []int64{15 * ms, 65 * ms})
	for _, want := range []string{"at the profile's np=2", "40ms to 40ms", "15ms to 65ms", "rank 0 does 100% of the ranks' mean work in the model and 38% in the program"} {
		if !strings.Contains(got, want) {
			t.Errorf("balanceText = %q, want it to hold %q", got, want)
		}
	}
	// Within a fifth of the mean: 0.9/1.1 against 1.0/1.0 differ by 0.1.
	if got := balanceText(2, []int64{40 * ms, 40 * ms}, []int64{36 * ms, 44 * ms}); got != "" {
		t.Errorf("balanceText within the gap = %q, want nothing", got)
	}
	// Ranks the model puts apart as the program does: nothing to say.
	if got := balanceText(4, []int64{10 * ms, 20 * ms, 30 * ms, 40 * ms}, []int64{11 * ms, 19 * ms, 31 * ms, 39 * ms}); got != "" {
		t.Errorf("balanceText of a modeled imbalance = %q, want nothing", got)
	}
}

// TestBalanceLimit: a run says the balance check's finding among its
// modeling limits at every np, from a profile whose plain runs put the
// work on one rank where the model charges both alike (units' segrec
// part: a segment of 1 + n/2·8 + n·4 ps a rank at np = 2); and says
// nothing when the plain runs agree with the model.
func TestBalanceLimit(t *testing.T) {
	const n = 1 << 16
	p := prepare(t, "./interp/testdata/units")
	args := []string{"-part", "segrec", "-n", "65536"}
	each := int64(1 + n/2*8 + n*4)
	for _, c := range []struct {
		plain []int64
		said  bool
	}{{[]int64{each / 5, 9 * each / 5}, true}, {[]int64{each, each}, false}} {
		pf := syntheticProfile(t, p, 2, args)
		pf.Fragments = append(pf.Fragments, segmentAt(t, p, "segrec", 2, 2, each))
		pf.PlainRankComputePS = c.plain
		for _, np := range []int{2, 8} {
			r, err := p.Run(Config{NP: np, Machine: handMachine(t), Profile: pf, Args: args})
			if err != nil {
				t.Fatal(err)
			}
			said := strings.Contains(strings.Join(r.Limits, "\n"), "rank 0 does 100% of the ranks' mean work in the model and 20% in the program")
			if said != c.said {
				t.Errorf("plain runs %v, np=%d: said %v, want %v (limits %q)", c.plain, np, said, c.said, r.Limits)
			}
		}
	}
}

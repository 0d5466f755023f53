package machine

import (
	"strings"
	"testing"
)

func TestAutoAlgorithm(t *testing.T) {
	m := testMachine()
	for _, c := range []struct {
		name  string
		bytes int64
		np    int
		want  Algorithm
	}{
		{"barrier", 0, 64, RecursiveDoubling},
		{"barrier", 0, 2, RecursiveDoubling},
		{"Barrier", 0, 48, Bruck},
		{"bcast", 8, 64, Binomial},
		{"bcast", 12287, 64, Binomial},
		{"bcast", 12288, 64, ScatterAllgather},
		{"bcast", 1 << 20, 4, Binomial}, // fewer than 8 ranks
		{"reduce", 2048, 64, Binomial},
		{"reduce", 2049, 64, Rabenseifner},
		{"reduce", 4096, 1024, Binomial}, // 512 elements < pof2 = 1024
		{"Allreduce", 8, 64, RecursiveDoubling},
		{"allreduce", 2048, 64, RecursiveDoubling},
		{"allreduce", 8192, 64, Rabenseifner},
		{"allreduce", 1 << 20, 100, Rabenseifner},
		{"allreduce", 4096, 1000, Rabenseifner},      // 512 elements ≥ pof2 = 512
		{"allreduce", 4096, 1024, RecursiveDoubling}, // 512 elements < pof2 = 1024
		{"gather", 1 << 20, 64, Binomial},
		{"scatter", 8, 3, Binomial},
		{"gatherv", 8, 64, Linear},
		{"allgather", 8, 64, RecursiveDoubling},     // total 512 B, power of two
		{"allgather", 8, 48, Bruck},                 // total 384 B, not a power of two
		{"allgather", 4096, 48, Ring},               // total 192 KiB ≥ 80 KiB
		{"allgather", 1 << 14, 64, Ring},            // total 1 MiB ≥ 512 KiB
		{"allgatherv", 1024, 64, RecursiveDoubling}, // total 64 KiB
		{"alltoall", 64 * 8, 64, Bruck},             // 8 B per pair, 64 ranks
		{"alltoall", 4 * 8, 4, Linear},              // 8 B per pair, only 4 ranks
		{"alltoall", 64 * 1024, 64, Linear},         // 1 KiB per pair
		{"Alltoall", 64 * 65536, 64, Pairwise},      // 64 KiB per pair
		{"alltoallv", 1 << 20, 64, Linear},
		{"scan", 8, 64, RecursiveDoubling},
		{"exscan", 8, 5, RecursiveDoubling},
	} {
		got, err := m.CollectiveAlgorithm(c.name, c.bytes, c.np)
		if err != nil || got != c.want {
			t.Errorf("CollectiveAlgorithm(%s, %d B, np=%d) = %s, %v; want %s", c.name, c.bytes, c.np, got, err, c.want)
		}
	}
	if _, err := m.CollectiveAlgorithm("broadcast", 8, 4); err == nil || !strings.Contains(err.Error(), "unknown collective") {
		t.Errorf("unknown collective: %v", err)
	}
}

func TestExplicitAlgorithm(t *testing.T) {
	m := testMachine()
	m.Collectives = map[string]Algorithm{"allreduce": Ring, "bcast": Auto}
	if got, _ := m.CollectiveAlgorithm("Allreduce", 8, 64); got != Ring {
		t.Errorf("explicit allreduce: %s, want ring", got)
	}
	if got, _ := m.CollectiveAlgorithm("bcast", 8, 64); got != Binomial {
		t.Errorf("bcast auto: %s, want binomial", got)
	}
}

func TestAlgorithmApplies(t *testing.T) {
	for _, c := range []struct {
		name string
		alg  Algorithm
		err  string // "" when valid
	}{
		{"allreduce", Rabenseifner, ""},
		{"reduce", Rabenseifner, ""},
		{"allgather", Bruck, ""},
		{"alltoall", Bruck, ""},
		{"alltoall", Rabenseifner, `"rabenseifner" does not apply to alltoall`},
		{"bcast", Bruck, `"bruck" does not apply to bcast`},
		{"barrier", "tree", `"tree" is not an algorithm`},
		{"broadcast", Binomial, `unknown collective "broadcast"`},
		{"scan", Auto, ""},
	} {
		err := checkAlgorithm(c.name, c.alg)
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%s/%s: %v", c.name, c.alg, err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s/%s: error %v, want %q", c.name, c.alg, err, c.err)
		}
	}
	// Every collective has its auto choice among its algorithms.
	for _, name := range CollectiveNames() {
		for _, np := range []int{1, 2, 3, 8, 48, 64, 1000, 1 << 16} {
			for _, b := range []int64{0, 8, 2049, 12288, 1 << 16, 1 << 24} {
				a := autoAlgorithm(name, b*int64(np), np)
				if err := checkAlgorithm(name, a); err != nil || a == Auto {
					t.Fatalf("auto %s at %d B, np=%d: %s: %v", name, b, np, a, err)
				}
			}
		}
	}
}

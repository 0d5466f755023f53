package profile

import (
	"strings"
	"testing"
)

// TestRuntime: the share of the plain run's CPU time the collector and the
// scavenger took (the system's time apart), the timing pass's warning
// beyond RuntimeWarnShare, and a prediction's limit where a node leaves
// another number of cores idle than the profiling machine did.
func TestRuntime(t *testing.T) {
	p := validProfile() // np = 2
	p.CPUs, p.PlainRunCPUPS = 2, 1e12
	p.Runtime = &Runtime{GCCPUPS: 12e10, ScavengeCPUPS: 1e10, AllocBytes: 3 << 30, GCCycles: 40, SysCPUPS: 26e10, MinorFaults: 31754}
	if got := p.RuntimeShare(); got != 0.13 {
		t.Errorf("share %v, want 0.13 (12 %% + 1 %%; the system's 26 %% apart)", got)
	}
	text := "the plain run allocated 3 GiB in 40 collections; of its CPU time the collector took 12%, the scavenger 1%, the system 26% (31754 page faults)"
	if got := p.RuntimeText(); got != text {
		t.Errorf("text %q\nwant %q", got, text)
	}
	if w := p.RuntimeWarning(); !strings.Contains(w, "took 13% of the plain run's CPU time ("+text+")") || !strings.Contains(w, "the ranks left 0 of the 2 CPUs idle") {
		t.Errorf("warning %q", w)
	}
	for _, c := range []struct {
		ranks, cores int
		want         string // "" no limit
	}{
		{2, 2, ""},
		{1, 2, "with 0 of its 2 CPUs idle; here a node runs 1 rank(s) on 2 cores, 1 idle"},
		{4, 2, ""}, // no core idle, as in the timing pass
		{16, 64, "here a node runs 16 rank(s) on 64 cores, 48 idle"},
	} {
		got := p.RuntimeLimit(c.ranks, c.cores)
		if c.want == "" && got != "" || !strings.Contains(got, c.want) {
			t.Errorf("%d ranks on %d cores: %q, want %q", c.ranks, c.cores, got, c.want)
		}
	}
	// Below the share, under a launcher (the CPUs idle there are not
	// known), or with nothing recorded: nothing said.
	quiet := *p
	quiet.Runtime = &Runtime{GCCPUPS: 9e10, SysCPUPS: 5e11}
	launched := *p
	launched.Launcher = "mpirun -np 2"
	for name, q := range map[string]*File{"quiet": &quiet, "launched": &launched, "unrecorded": validProfile()} {
		if w, l := q.RuntimeWarning(), q.RuntimeLimit(1, 2); (w != "") != (name == "launched") || l != "" {
			t.Errorf("%s: warning %q, limit %q", name, w, l)
		}
	}
}

// TestSummaryRuntime: the summary prints what the runtime did, and the
// timing pass's warning with the other warnings.
func TestSummaryRuntime(t *testing.T) {
	p := validProfile()
	p.CPUs, p.PlainRunCPUPS = 2, 1e12
	p.Runtime = &Runtime{GCCPUPS: 2e11, AllocBytes: 1 << 20, GCCycles: 3, SysCPUPS: -1, MinorFaults: -1}
	p.Warnings = append(p.Warnings, p.RuntimeWarning())
	var b strings.Builder
	if err := p.WriteSummary(&b, 5); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"runtime: the plain run allocated 1 MiB in 3 collections; of its CPU time the collector took 20%, the scavenger 0%\n",
		"WARNING: the Go runtime's collector and scavenger took 20% of the plain run's CPU time",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, b.String())
		}
	}
}

package interp

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/predict-tools/predict/machine"
	"github.com/predict-tools/predict/profile"
	"github.com/predict-tools/predict/trace"
)

// TestGoroutinesHandComputed checks goroutines, WaitGroup joins,
// sync.Mutex, sync.RWMutex and sync.Once against hand computations: a
// goroutine costs its creator Create (7 ns) and starts Start (2 ns)
// later; Add and Done cost CAS (6 ns); Wait returns at the later of its
// clock plus CAS and the latest Done; a lock is taken at max(t, release)
// + TryLock (1 ns) and released after Release (4 ns); U is one unit of
// spin.
func TestGoroutinesHandComputed(t *testing.T) {
	p := prepare(t, "./interp/testdata/goroutines")
	const U = 1_000_000 // one unit of work: 1 µs
	pf := unitProfile(t, p, U)
	m := threadMachine(t)
	cases := []partTime{
		// The main goroutine at 100 U: Add, go (13 ns each) per goroutine,
		// which starts 2 ns later: at 15, 28 and 41 ns past 100 U. The
		// 20 U one ends last, at 120 U + 28 ns, and its Done at + 34 ns.
		{"join", 120*U + 34_000},
		// Add(2) 6 ns; the goroutines start at 15 and 22 ns. The first
		// locks at 5 U + 16 ns and unlocks at 15 U + 20 ns; the second,
		// asking at 6 U + 22 ns, gets it at 15 U + 21 ns, unlocks at
		// 16 U + 25 ns, and is Done at 16 U + 31 ns.
		{"mutex", 16*U + 31_000},
		// The second goroutine (asking at 3 U + 22 ns) locks first, at
		// 3 U + 23 ns, and unlocks (deferred) at 13 U + 27 ns; the first,
		// asking at 8 U + 15 ns, gets it at 13 U + 28 ns, unlocks at
		// 15 U + 32 ns, Done at 15 U + 38 ns.
		{"causal", 15*U + 38_000},
		// Readers start at 15 and 28 ns, the writer at 41 ns. The readers
		// hold the lock from 1 U + 16 ns to 11 U + 20 ns and from
		// 2 U + 29 ns to 7 U + 33 ns; the writer, asking at 3 U + 41 ns,
		// gets it at 11 U + 21 ns, unlocks at 15 U + 25 ns, Done + 6 ns.
		{"rwmutex", 15*U + 31_000},
		// WaitGroup.Go: CAS and go, 13 ns each: starts at 15 and 28 ns;
		// the 9 U one is Done at 9 U + 34 ns.
		{"wggo", 9*U + 34_000},
		// The outer goroutine starts at 15 ns, starts its two at 30 and
		// 43 ns and waits; the 6 U one is Done at 6 U + 49 ns; then 1 U
		// and the outer Done: 7 U + 55 ns.
		{"nested", 7*U + 55_000},
		// Goroutines start at 15, 28 and 41 ns. The first runs once's
		// function from 21 ns to 5 U + 21 ns; the others return from Do
		// then too; each spins 1 U and is Done at 6 U + 27 ns.
		{"once", 6*U + 27_000},
		// The rank ends at 2 U + 7 ns (go, then 2 U): not waiting for
		// its goroutine.
		{"unjoined", 2*U + 7_000},
		// Goroutines start at 15, 28 and 41 ns and take the tasks of an
		// atomic counter in the order of their clocks (atomics cost
		// nothing of their own: they are in the measured fragments):
		// tasks 0-2 end at 10 U + 15, 28, 41 ns, tasks 3-5 at 20 U + the
		// same; each then finds the counter past 6 and is Done 6 ns
		// later, the last at 20 U + 47 ns.
		{"worksharing", 20*U + 47_000},
		// Channels: a send or receive costs CAS (6 ns); a receive takes a
		// value at max(its clock, when it was sent) + CAS. The goroutine
		// starts at 9 ns and sends at 10 U + 15, 20 U + 27 and
		// 30 U + 39 ns (each waits for the take before); the main
		// goroutine takes them at 10 U + 21, 20 U + 33, 30 U + 45 ns and
		// computes 5 U after the last.
		{"pipeline", 35*U + 45_000},
		// Sent at 1 U + 15 and 2 U + 21 ns into the buffer; the third
		// send waits for room until the first take (10 U + 13 ns), the
		// fourth until the second (11 U + 19 ns); takes at 10 U + 13,
		// 11 U + 19, 12 U + 25, 13 U + 31 ns, each followed by 1 U.
		{"buffered", 14*U + 31_000},
		// Taken at 2 U + 21, 4 U + 33 and 6 U + 45 ns, 2 U computed
		// after each; the close (6 U + 51 ns) ends the range at
		// 8 U + 45 ns.
		{"rangeclose", 8*U + 45_000},
		// The second goroutine's value (sent at 3 U + 22 ns) is taken
		// first, at 3 U + 28 ns, then 2 U; the first's (5 U + 15 ns) at
		// 5 U + 34 ns, then 1 U.
		{"select", 6*U + 34_000},
		// Through interfaces: Add and go (13 ns), the goroutine starts at
		// 15 ns, spins 4 U, is Done at 4 U + 21 ns; then 1 U and the
		// deferred Close's 2 U.
		{"iface", 7*U + 21_000},
		// errgroup.Group.Go: Add (CAS) and go, 13 ns each: the goroutines
		// start at 15, 28 and 41 ns. The 20 U one returns its error at
		// 20 U + 28 ns, kept (errOnce: CAS) at + 34 ns, Done at + 40 ns,
		// the last; Wait's error then takes 5 U more.
		{"errgroup", 25*U + 40_000},
		// The same through a helper that passes the functions on to Go:
		// the helper's call adds nothing (inlined, no fragment).
		{"errindirect", 25*U + 40_000},
		// SetLimit(2): each Go sends a token (CAS) first: 19 ns a Go.
		// The first two start at 21 and 40 ns. The third Go's token
		// waits from 44 ns until the first ends (10 U + 21 ns) and takes
		// its token back (10 U + 27 ns); the third goroutine starts at
		// 10 U + 42 ns and ends at 15 U + 42 ns, whose token lets the
		// fourth Go on at 15 U + 48 ns: it starts at 15 U + 63 ns, ends
		// at 20 U + 63 ns, takes its token back at + 69 ns, is Done at
		// + 75 ns, after the second (20 U + 52 ns).
		{"errlimit", 20*U + 75_000},
		// SetLimit(1): the first TryGo starts its goroutine at 21 ns;
		// the second finds no token (at 19 ns, CAS: 25 ns) and returns
		// false; the main goroutine spins 3 U; the goroutine ends at
		// 10 U + 21 ns, its token back at + 27 ns, Done at + 33 ns.
		{"trygo", 10*U + 33_000},
		// The main goroutine's Lock (at 8 U + 13 ns) first runs its
		// goroutine up to then: the goroutine, asking at 5 U + 15 ns,
		// holds the lock from 5 U + 16 ns and releases it at
		// 15 U + 20 ns; the main goroutine gets it at 15 U + 21 ns,
		// spins 1 U, unlocks (16 U + 25 ns); the goroutine was Done at
		// 15 U + 26 ns, and Wait returns at 16 U + 31 ns. (Before, the
		// main goroutine ran ahead and took the lock at 8 U.)
		{"mainlock", 16*U + 31_000},
	}
	runParts(t, p, m, pf, cases)
}

// TestGoroutinesOnCores checks by hand that goroutines share their rank's
// cores as pool threads do: eight goroutines of 10 U, started 13 ns apart
// (Add and go) from 15 ns, on a node of two cores run in four waves of
// two; goroutine k waits for a core from its start (13k + 15 ns) until
// the goroutine two before it ends.
func TestGoroutinesOnCores(t *testing.T) {
	p := prepare(t, "./interp/testdata/goroutines")
	const U = 1_000_000
	pf := unitProfile(t, p, U)
	m := twoCoreMachine(t)
	r, err := p.Run(Config{NP: 1, Machine: m, Profile: pf, Args: []string{"-part", "fanout"}})
	if err != nil {
		t.Fatal(err)
	}
	// The last ends at 40 U + 28 ns, its Done at + 34 ns.
	if want := int64(40*U + 34_000); int64(r.Time) != want {
		t.Errorf("predicted %d ps, hand computation %d ps", r.Time, want)
	}
	// Goroutines 2 and 3 wait 10 U − 26 ns, 4 and 5 20 U − 52 ns, 6 and
	// 7 30 U − 78 ns.
	if got, want := int64(r.ThreadCoreWait.Max), int64(2*(10*U-26_000)+2*(20*U-52_000)+2*(30*U-78_000)); got != want {
		t.Errorf("goroutines waited %d ps for a core, hand computation %d ps", got, want)
	}
}

// TestGoroutinesBesideMain checks by hand, on a node of two cores, that
// the main goroutine computing beside its goroutines takes one of the
// cores they share, and that goroutines book the cores in the order of
// their clocks, a compute at a time.
func TestGoroutinesBesideMain(t *testing.T) {
	p := prepare(t, "./interp/testdata/goroutines")
	const U = 1_000_000
	pf := unitProfile(t, p, U)
	m := twoCoreMachine(t)
	cases := []partTime{
		// The goroutines start at 15 and 28 ns; the main goroutine
		// spins its 10 U on a core from 26 ns. The first goroutine takes
		// the other core from 15 ns to 10 U + 15 ns; the second waits
		// for it and ends at 20 U + 15 ns, Done at + 21 ns. (With the
		// main goroutine on a core of its own: 10 U + 34 ns.)
		{"beside", 20*U + 21_000},
		// Add(3), then goroutines at 15, 22 and 29 ns; the main goroutine
		// waits. The first's pieces of 5 U and the others' 10 U take the
		// core that frees first in the order of their clocks: the first
		// piece on core 0 [15 ns, 5 U + 15], the 10 U ones on core 1
		// [22 ns, 10 U + 22] and core 0 [5 U + 15, 15 U + 15], then the
		// first's pieces at 10 U + 22, 15 U + 22 and 20 U + 22 ns: Done
		// at 25 U + 28 ns. (Booking all four pieces first: 30 U + 21 ns.)
		{"interleave", 25*U + 28_000},
	}
	runParts(t, p, m, pf, cases)
	// Once.Do's function computes on the shared cores to its end: a
	// critical section does not give its turn away (it would block).
	if _, err := p.Run(Config{NP: 1, Machine: m, Profile: pf, Args: []string{"-part", "once"}}); err != nil {
		t.Errorf("once on two cores: %v", err)
	}
}

// TestGoroutinesAlone checks by hand that a goroutine's fragment is
// charged between its alone and shared times by how busy its node's cores
// are, as a rank's main thread is: the profile measured spin alone at half
// its time beside another rank (np = 2 on 2 CPUs). One goroutine of a
// rank alone on a node of 2 cores computes alone; two share the cores as
// the profile's ranks did.
func TestGoroutinesAlone(t *testing.T) {
	p := prepare(t, "./interp/testdata/goroutines")
	const U = 1_000_000
	pf := spinProfile(t, p, 2, U)
	pf.AloneRel, pf.CPUs = 0.5, 2
	for i := range pf.Fragments {
		pf.Fragments[i].AloneRel = 0.5
	}
	m := threadMachine(t)
	m.CoresPerNode, m.RanksPerNode = 2, 1
	runParts(t, p, m, pf, []partTime{
		// CAS and go (13 ns), the goroutine starts at 15 ns, computes
		// 10 U alone (5 U), its Done at + 6 ns.
		{"single", 5*U + 21_000},
		// Two goroutines (start at 15 and 28 ns) on the 2 cores, as
		// busy as the profile's: 7 U and 9 U as measured; the second's
		// Done at 9 U + 34 ns.
		{"wggo", 9*U + 34_000},
	})
}

// TestGoroutineErrors checks that misuse of a WaitGroup ends the run with
// its cause and file:line, as Go's runtime would panic or hang.
func TestGoroutineErrors(t *testing.T) {
	p := prepare(t, "./interp/testdata/goroutines")
	m, err := machine.Preset("ideal")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("testdata/goroutines/main.go")
	if err != nil {
		t.Fatal(err)
	}
	// lineOf is the line of the first occurrence of s after the case of
	// part in the program.
	lineOf := func(part, s string) int {
		text := string(src)
		i := strings.Index(text, `case "`+part+`":`)
		j := i + strings.Index(text[i:], s)
		return strings.Count(text[:j], "\n") + 1
	}
	for part, want := range map[string]string{
		"negative":     fmt.Sprintf("goroutines/main.go:%d:11: rank 0: sync: negative WaitGroup counter", lineOf("negative", "wg.Done()")),
		"forever":      fmt.Sprintf("goroutines/main.go:%d:11: rank 0: sync.WaitGroup.Wait waits forever: its counter is 1", lineOf("forever", "wg.Wait()")),
		"chandeadlock": fmt.Sprintf("goroutines/main.go:%d:4: rank 0: receive from channel 1: no goroutine of the rank can end the wait (deadlock: all goroutines are asleep)", lineOf("chandeadlock", "<-ch")),
		"deadlock":     "sync.WaitGroup.Wait waits forever: its counter is 1 once every goroutine of the rank that can run has run (an Add without its Done, or a deadlock): thread 1 (clock",
	} {
		_, err := p.Run(Config{NP: 1, Machine: m, Args: []string{"-part", part}})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want one containing %q", part, err, want)
		}
	}
}

// partTime is a part of interp/testdata/goroutines and its hand-computed
// time, ps.
type partTime struct {
	part string
	want int64
}

// runParts runs each part at np = 1 and checks its predicted time.
func runParts(t *testing.T, p *Program, m *machine.Machine, pf *profile.File, cases []partTime) {
	t.Helper()
	for _, c := range cases {
		r, err := p.Run(Config{NP: 1, Machine: m, Profile: pf, Args: []string{"-part", c.part}})
		if err != nil {
			t.Fatalf("%s: %v", c.part, err)
		}
		if int64(r.Time) != c.want {
			t.Errorf("%s: predicted %d ps, hand computation %d ps", c.part, r.Time, c.want)
		}
	}
}

// twoCoreMachine is a node of two cores, one rank a node, whose goroutines
// cost Create 7 ns, Start 2 ns and CAS 6 ns.
func twoCoreMachine(t *testing.T) *machine.Machine {
	t.Helper()
	ns := trace.Nanosecond
	m, err := machine.Preset("ideal")
	if err != nil {
		t.Fatal(err)
	}
	m.Threads = machine.ThreadCosts{Create: 7 * ns, Start: 2 * ns, CAS: 6 * ns}
	m.CoresPerNode, m.RanksPerNode = 2, 1
	return m
}

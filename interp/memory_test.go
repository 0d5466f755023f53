package interp

import (
	"errors"
	"math"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
)

// TestMemoryEstimate checks that the memory per process measured at
// np=32 and 64 predicts the memory of a run at a larger np: the live heap
// of interp/testdata/checks at np=512 over its heap at np=32.
func TestMemoryEstimate(t *testing.T) {
	p := prepare(t, "./interp/testdata/checks")
	cfg := Config{Args: []string{"-n", "1024"}}
	est, err := p.EstimateMemory(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if est.PerProcess < 100 || est.PerProcess > 1<<20 {
		t.Fatalf("%d B per process: not a process's state", est.PerProcess)
	}
	// Linear in np, and saturating instead of overflowing.
	for _, np := range []int{1, 1000, 1 << 20} {
		if est.Bytes(2*np) != 2*est.Bytes(np) || est.Bytes(np) != int64(np)*est.PerProcess {
			t.Errorf("Bytes(%d) = %d, Bytes(%d) = %d: not linear", np, est.Bytes(np), 2*np, est.Bytes(2*np))
		}
	}
	if est.Bytes(math.MaxInt) != math.MaxInt64 {
		t.Errorf("Bytes(MaxInt) = %d, want MaxInt64", est.Bytes(math.MaxInt))
	}
	if again, _ := p.EstimateMemory(cfg); again != est {
		t.Errorf("a second estimate of the same run measured again")
	}
	const np = 512
	base, err := p.peakLive(Config{NP: 32, Args: cfg.Args}, nil)
	if err != nil {
		t.Fatal(err)
	}
	live, err := p.peakLive(Config{NP: np, Args: cfg.Args}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, want := float64(live-base), float64(est.Bytes(np-32))
	if math.Abs(got-want) > 0.1*want {
		t.Errorf("np=%d: %.0f B more than at np=32, the estimate says %.0f B", np, got, want)
	}
}

// TestMemoryRefused checks that a run that will not fit is refused
// before it allocates its processes, and that one that fits runs.
func TestMemoryRefused(t *testing.T) {
	p := prepare(t, "./interp/testdata/checks")
	args := []string{"-n", "16777216", "-iters", "1"}
	est, err := p.EstimateMemory(Config{Args: args})
	if err != nil {
		t.Fatal(err)
	}
	const huge = 10_000_000
	_, err = p.Run(Config{NP: huge, Args: args, MemoryLimit: 1 << 30})
	var me *MemoryError
	if !errors.As(err, &me) {
		t.Fatalf("np=%d with 1 GiB: got %v, want a *MemoryError", huge, err)
	}
	if me.NP != huge || me.Need != est.Bytes(huge) || me.Limit != 1<<30 {
		t.Errorf("got %+v, want np %d, need %d, limit %d", *me, huge, est.Bytes(huge), 1<<30)
	}
	for _, s := range []string{"the model of 10000000 processes needs about", "B per process, measured between np=32 and np=64", "more than the 1.1 GB available (the limit given); use a smaller np or more memory"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("%q lacks %q", err, s)
		}
	}
	// What fits runs: the limit exactly the estimate.
	const np = memoryCheckNP
	if _, err := p.Run(Config{NP: np, Args: args, MemoryLimit: est.Bytes(np)}); err != nil {
		t.Errorf("np=%d with a limit of the estimate: %v", np, err)
	}
	if _, err := p.Run(Config{NP: np, Args: args, MemoryLimit: est.Bytes(np) - 1}); !errors.As(err, &me) {
		t.Errorf("np=%d with a limit just below the estimate: got %v, want a *MemoryError", np, err)
	}
}

// TestMemoryLimit checks where the limit comes from.
func TestMemoryLimit(t *testing.T) {
	if l, src := MemoryLimit(Config{MemoryLimit: 12345}); l != 12345 || src != "the limit given" {
		t.Errorf("given: %d (%s)", l, src)
	}
	old := debug.SetMemoryLimit(4 << 30)
	l, src := MemoryLimit(Config{})
	debug.SetMemoryLimit(old)
	if l <= 0 || float64(l) > memoryMargin*(4<<30) || !strings.Contains(src, "GOMEMLIMIT=4.3 GB") {
		t.Errorf("GOMEMLIMIT=4 GiB: %d (%s)", l, src)
	}
	if old == math.MaxInt64 {
		// Without GOMEMLIMIT: the system's available memory (which
		// changes between two reads).
		if _, ok := memAvailable(); ok {
			if l, src := MemoryLimit(Config{}); l <= 0 || src != "90% of MemAvailable" {
				t.Errorf("without GOMEMLIMIT: %d (%s)", l, src)
			}
		}
	}
}

// TestMemoryEstimateAlone checks that runs at other np going on meanwhile
// (a sweep's) do not count in the measurement: a sweep once measured
// 555 B per process for stencil's 6.5 kB.
func TestMemoryEstimateAlone(t *testing.T) {
	alone := prepare(t, "./interp/testdata/checks")
	cfg := Config{Args: []string{"-n", "1024"}}
	want, err := alone.EstimateMemory(cfg)
	if err != nil {
		t.Fatal(err)
	}
	busy := prepare(t, "./interp/testdata/checks")
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := busy.Run(Config{NP: 256, Args: cfg.Args}); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	got, err := busy.EstimateMemory(cfg)
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(float64(got.PerProcess-want.PerProcess)) > 0.1*float64(want.PerProcess) {
		t.Errorf("with other runs going on: %d B per process, alone %d", got.PerProcess, want.PerProcess)
	}
}

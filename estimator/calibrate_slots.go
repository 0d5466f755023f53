// This file defines MPIPerf's synchronised launches (seed-001 §3): clock
// offsets by the fastest round trip, a schedule of time slots on the
// global clock instead of a barrier before timed launches, the time of a
// launch as the maximum over ranks, invalid launches and a window that
// grows, and the WaitPattern self-tests that must pass before anything is
// written.

package estimator

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// ClockOffset is a rank's clock against rank 0's: global = local + Offset
// (ns), estimated on the exchange with the smallest round trip RTT, so
// that its error is at most RTT/2 (seed-001 §3.1).
type ClockOffset struct {
	Offset    int64 `json:"offset_ns"`
	RTT       int64 `json:"rtt_min_ns"`
	Exchanges int   `json:"exchanges"`
}

// A clockExchanger does one clock-sync round trip with rank 0: the rank's
// clock when it asked, rank 0's on receipt, the rank's when the answer came.
type clockExchanger interface {
	exchange() (sent, peer, received int64, err error)
}

// syncPatience is MPIPerf's d: the exchanges after which a minimum round
// trip that has not improved is taken; maxExchanges bounds the whole.
const (
	syncPatience = 100
	maxExchanges = 100 * syncPatience
)

// syncClock estimates a rank's offset from exchanges with rank 0 until the
// smallest round trip has not improved for patience exchanges.
func syncClock(x clockExchanger, patience int) (ClockOffset, error) {
	best := ClockOffset{RTT: math.MaxInt64}
	for same := 0; same < patience && best.Exchanges < maxExchanges; {
		sent, peer, received, err := x.exchange()
		if err != nil {
			return best, err
		}
		best.Exchanges++
		if rtt := received - sent; rtt >= 0 && rtt < best.RTT {
			best.RTT, best.Offset, same = rtt, peer-(sent+rtt/2), 0
		} else {
			same++
		}
	}
	if best.RTT == math.MaxInt64 {
		return best, fmt.Errorf("clock sync: no exchange with a round trip of 0 or more in %d", best.Exchanges)
	}
	return best, nil
}

// launch is what one rank saw of one launch, on its own clock (ns): the
// slot's start, when the operation began (after the wait for the slot)
// and ended, and whether the rank arrived after its slot had begun.
type launch struct {
	Slot, Start, End int64
	Late             bool
}

// slotTolerance is how far past its slot a rank may begin a launch: a
// rank that arrived in time but lost its core while it waited (another
// process, the Go scheduler) begins late as surely as one that arrived
// late, and the others wait for it inside the operation.
const slotTolerance = 1000 // ns

// runSlots is one rank's part of a stage: launch l of op at startLocal +
// l·window on the rank's clock, busy-waiting (never sleeping) for it;
// with window 0 the launches run back to back. A late rank still runs the
// operation, so that the ranks' operations still match.
func runSlots(clock func() int64, op func(l int), startLocal, window int64, k int) []launch {
	out := make([]launch, k)
	for l := range out {
		slot := startLocal + int64(l)*window
		t := clock()
		late := window > 0 && t > slot
		for t < slot {
			t = clock()
		}
		late = late || (window > 0 && t > slot+slotTolerance)
		op(l)
		out[l] = launch{Slot: slot, Start: t, End: clock(), Late: late}
	}
	return out
}

// A stageRunner runs a stage on every rank: rank r's launches start at
// start − offsets[r] on its clock (start on rank 0's), one every window.
// The in-process runtime is one (ranks as goroutines); tests give fakes
// with skewed clocks and noise.
type stageRunner interface {
	ranks() int
	now() int64 // rank 0's clock, the global one
	stage(start int64, offsets []int64, window int64, k int) ([][]launch, error)
}

// SlotConfig is the schedule of MPIPerf (seed-001 §3.3): K0 back-to-back
// warm-up launches that size the first window, then stages of K launches;
// when more than Invalid of a stage's launches are invalid the window
// becomes max(2·window, Gamma·span/K), at most MaxWindow. The first window
// is at least MinWindow: an operation of nanoseconds would otherwise get
// windows shorter than the jitter of the ranks' start. Lead is the time
// between the announcement of a stage and its first slot.
type SlotConfig struct {
	K0, K     int
	Gamma     float64
	Invalid   float64
	Lead      int64 // ns
	MinWindow int64 // ns
	MaxWindow int64 // ns
}

// DefaultSlots are MPIPerf's defaults, with a lead of 200 µs (a rank
// parked between stages takes tens of µs to wake; a calibration measures
// the lead instead, slotLead) and windows of 10 µs to
// 2 ms for ranks that are goroutines of one process: longer windows only
// give the system more time to deschedule a spinning rank.
var DefaultSlots = SlotConfig{K0: 4, K: 8, Gamma: 1.1, Invalid: 0.25, Lead: 200_000, MinWindow: 10_000, MaxWindow: 2_000_000}

// The lead of a stage is measured (slotLead): leadFactor times the 90th
// percentile of the time a command takes to reach the latest rank (the
// announcement of a stage is one), MPIPerf's 1.2 × the broadcast time,
// within minLead and maxLead.
const (
	leadFactor = 1.2
	minLead    = 20_000    // ns
	maxLead    = 5_000_000 // ns
)

// slotLead is the lead of the stages from samples of the announcement's
// time (ns).
func slotLead(samples []float64) int64 {
	if len(samples) == 0 {
		return DefaultSlots.Lead
	}
	s := slices.Clone(samples)
	slices.Sort(s)
	p90 := s[min(int(0.9*float64(len(s))), len(s)-1)]
	return min(max(int64(math.Ceil(leadFactor*p90)), minLead), maxLead)
}

// SlotCounts are the diagnostics of a slot measurement (seed-001 §6.3).
type SlotCounts struct {
	Stages       int     `json:"stages"`
	Runs         int     `json:"runs"`
	Valid        int     `json:"valid"`
	Late         int     `json:"late"`
	TooLong      int     `json:"too_long"`
	Windows      []int64 `json:"windows_ns"` // the window of each stage
	WindowCapped bool    `json:"window_capped,omitempty"`
	First        float64 `json:"first_ns"` // the first launch, max over ranks, measured apart
	// Offsets are the ranks' clock offsets the schedule used, from the
	// clock sync just before this measurement.
	Offsets []int64 `json:"offsets_ns"`
}

// slotSampler measures an operation by slots: each sample call runs one
// stage and returns the max-over-ranks times of its valid launches.
type slotSampler struct {
	r       stageRunner
	offsets []int64
	cfg     SlotConfig
	window  int64
	counts  SlotCounts
	perRank [][]float64 // each rank's own times of the valid launches
}

func newSlotSampler(r stageRunner, offsets []int64, cfg SlotConfig) *slotSampler {
	return &slotSampler{r: r, offsets: offsets, cfg: cfg, perRank: make([][]float64, r.ranks()), counts: SlotCounts{Offsets: offsets}}
}

// warmUp runs stage 0: back to back, not measured but for its first
// launch (the first call's cost, seed-001 §2.1) and the span that sizes
// the first window.
func (s *slotSampler) warmUp() error {
	start := s.r.now() + s.cfg.Lead
	ls, err := s.r.stage(start, s.offsets, 0, s.cfg.K0)
	if err != nil {
		return err
	}
	for _, rank := range ls {
		s.counts.First = math.Max(s.counts.First, float64(rank[0].End-rank[0].Start))
	}
	s.window = max(int64(s.cfg.Gamma*float64(span(ls))/float64(s.cfg.K0)), s.cfg.MinWindow, 1)
	return nil
}

// span is the longest time from a rank's first slot to its last launch's end.
func span(ls [][]launch) int64 {
	var d int64
	for _, rank := range ls {
		d = max(d, rank[len(rank)-1].End-rank[0].Slot)
	}
	return d
}

func (s *slotSampler) sample(int) ([]float64, error) {
	if s.window == 0 {
		if err := s.warmUp(); err != nil {
			return nil, err
		}
	}
	start := s.r.now() + s.cfg.Lead
	ls, err := s.r.stage(start, s.offsets, s.window, s.cfg.K)
	if err != nil {
		return nil, err
	}
	s.counts.Stages++
	s.counts.Windows = append(s.counts.Windows, s.window)
	var out []float64
	invalid := 0
	for l := range s.cfg.K {
		worst, late, long := int64(0), false, false
		for _, rank := range ls {
			x := rank[l]
			worst = max(worst, x.End-x.Start)
			late = late || x.Late
			long = long || x.End > x.Slot+s.window
		}
		s.counts.Runs++
		// No rank late: each began within slotTolerance of its slot, so
		// the ranks' start times on the global clock (by the offsets the
		// stage used) spread by at most slotTolerance; a launch whose
		// spread exceeds it has a late rank, and is left out as late.
		switch {
		case late:
			s.counts.Late++
			invalid++
		case long:
			s.counts.TooLong++
			invalid++
		default:
			s.counts.Valid++
			out = append(out, float64(worst))
			for r, rank := range ls {
				s.perRank[r] = append(s.perRank[r], float64(rank[l].End-rank[l].Start))
			}
		}
	}
	if float64(invalid) > s.cfg.Invalid*float64(s.cfg.K) {
		w := max(2*s.window, int64(s.cfg.Gamma*float64(span(ls))/float64(s.cfg.K)))
		if w > s.cfg.MaxWindow {
			w, s.counts.WindowCapped = s.cfg.MaxWindow, true
		}
		s.window = w
	}
	return out, nil
}

// rankMeans are the ranks' own trimmed mean times (seed-001 §6.3 item 13:
// per-rank times are more diagnostic than the max alone).
func (s *slotSampler) rankMeans(trim float64) []float64 {
	out := make([]float64, len(s.perRank))
	for r, xs := range s.perRank {
		out[r] = trimmedEstimate(xs, trim, 0.95).Mean
	}
	return out
}

// SelfTest is the result of a WaitPattern self-test.
type SelfTest struct {
	Name     string     `json:"name"`
	Expected float64    `json:"expected_ns"`
	Measured Estimate   `json:"measured"`
	Slots    SlotCounts `json:"slots"`
	Tol      float64    `json:"tolerance_ns"`
	Pass     bool       `json:"pass"`
}

// String is the test's line in a summary: the measured and expected
// times, the valid launches and the verdict, with the likely cause of a
// failure on too few valid launches.
func (t SelfTest) String() string {
	verdict := "pass"
	if !t.Pass {
		verdict = "FAIL"
	}
	why := ""
	if !t.Pass && t.Measured.Kept < minSelfTestRuns {
		why = " (too few launches began on time on every rank: other processes took the ranks' cores; the machine is too loaded to schedule them)"
	}
	return fmt.Sprintf("%s: %.0f ns (expected %.0f ± %.0f ns), %d of %d launches valid: %s%s",
		t.Name, t.Measured.Mean, t.Expected, t.Tol, t.Slots.Valid, t.Slots.Runs, verdict, why)
}

// SelfTestError refuses a calibration whose self-tests failed: the timer
// or the launch schedule cannot be trusted, so nothing is written.
type SelfTestError struct{ Tests []SelfTest }

// Error lists the failed self-tests and says that nothing was written.
func (e *SelfTestError) Error() string {
	var failed []string
	for _, t := range e.Tests {
		if !t.Pass {
			failed = append(failed, t.String())
		}
	}
	return "self-tests failed, nothing written (the timer or the launch schedule cannot be trusted): " + strings.Join(failed, "; ")
}

// minSelfTestRuns is the fewest valid launches a self-test is judged on.
const minSelfTestRuns = 8

// waitUnit is WaitPatternUp's step: rank i waits (i+1) units.
const waitUnit = 1000 // ns

// waitOps are the self-tests' operations on rank r of n, spinning on clock:
// WaitPatternNull does nothing (its time is the timer's), WaitPatternUp
// waits (r+1) µs, so the max over ranks is n µs (seed-001 §5.2).
func waitOps(clock func() int64, r int) map[string]func(int) {
	return map[string]func(int){
		"WaitPatternNull": func(int) {},
		"WaitPatternUp": func(int) {
			for t0 := clock(); clock()-t0 < int64(r+1)*waitUnit; {
			}
		},
	}
}

// selfTestNames in the order they run.
var selfTestNames = []string{"WaitPatternNull", "WaitPatternUp"}

// A clockSync synchronises the ranks' clocks again (each rank keeps its
// own offset) and returns their offsets against rank 0: before each slot
// measurement, as MPIPerf does, so that a clock that drifts since the last
// sync does not shift a rank's slots (seed-001 §3.1).
type clockSync func() ([]int64, error)

// selfTests runs the WaitPattern tests through runners (one per test,
// whose operation is that test's), each on clocks sync has just
// synchronised, and judges them: WaitPatternNull at most nullTol,
// WaitPatternUp within 0.5 µs + 2 % of n µs (seed-001 §6.10).
func selfTests(runners map[string]stageRunner, sync clockSync, cfg SlotConfig, rule StopRule, nullTol float64, elapsed func() time.Duration) ([]SelfTest, error) {
	var out []SelfTest
	for _, name := range selfTestNames {
		r := runners[name]
		offsets, err := sync()
		if err != nil {
			return out, err
		}
		s := newSlotSampler(r, offsets, cfg)
		t0 := elapsed()
		e, _, err := measureUntil(name, s, rule, func() time.Duration { return elapsed() - t0 })
		if _, noisy := err.(*NoisyError); err != nil && !noisy {
			return out, err
		}
		st := SelfTest{Name: name, Measured: e, Slots: s.counts}
		if name == "WaitPatternNull" {
			st.Tol = nullTol
		} else {
			st.Expected = float64(r.ranks() * waitUnit)
			st.Tol = 500 + 0.02*st.Expected
		}
		// Judged by the mean and its interval against the tolerance (an
		// interval relative to an expected 0 never converges): the whole
		// interval within it, on enough valid launches.
		st.Pass = e.Kept >= minSelfTestRuns && math.Abs(e.Mean-st.Expected)+e.HalfWidth <= st.Tol
		out = append(out, st)
	}
	if !slices.ContainsFunc(out, func(t SelfTest) bool { return !t.Pass }) {
		return out, nil
	}
	return out, &SelfTestError{Tests: out}
}

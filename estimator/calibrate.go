// This file defines Calibrate: the calibration of this machine's
// in-process runtime (ranks as goroutines of one commlib.Run), or of
// commlib's MPI runtime under a launcher, by MPIPerf's method, and the
// machine it writes.

package estimator

import (
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/predict-tools/predict/commlib"
	"github.com/predict-tools/predict/commlib/eagerlimit"
	"github.com/predict-tools/predict/estimator/probe"
	"github.com/predict-tools/predict/machine"
	"github.com/predict-tools/predict/trace"
)

// CalibrateOptions tune Calibrate. The zero value is a full calibration.
type CalibrateOptions struct {
	// Quick measures fewer sizes (powers of 4, not of 2) to a wider
	// interval (±5 %, not ±2 %) in a smaller budget: a few seconds.
	Quick bool
	// RelCI, when set, is the half-width of the confidence interval that
	// every measured mean must reach, relative to it (0.02: ±2 %).
	RelCI float64
	// Budget, when set, is the time each measured quantity may take
	// before the machine is declared too noisy.
	Budget time.Duration
	// MaxBytes is the largest ping-pong message (default 4 MiB).
	MaxBytes int64
	// Log receives a line as each step starts (nil: none).
	Log io.Writer
	// Cold makes the ping-pongs and Send calls rotate through buffers
	// spanning 64 MiB (beyond the caches) instead of reusing one per size.
	Cold bool
	// Collectives also times the collectives of CalibrationCollectives
	// at the job's np, in slots (for validation; not in the machine).
	Collectives bool
	// Launcher, when set, measures the network under it (commlib's MPI
	// runtime, one process a rank: the tester is built with the mpi tag
	// from predict's module); the threads, the memory and the allocation
	// are measured in this process, on this node.
	Launcher *Launcher
}

// Calibration is what Calibrate measured and the machine made of it.
type Calibration struct {
	Host      Host          `json:"host"`
	Started   time.Time     `json:"started"`
	Took      time.Duration `json:"took_ns"`
	Quick     bool          `json:"quick"`
	Buffers   string        `json:"buffers"` // the buffer policy: hot or cold
	Ranks     int           `json:"ranks"`
	Runtime   string        `json:"runtime"`              // "in-process", or the launcher's command
	RankHosts []string      `json:"rank_hosts,omitempty"` // the host of each rank, under a launcher
	Error     string        `json:"error,omitempty"`      // the tester's refusal, under a launcher
	// EagerLimit is the runtime's configured eager limit, as commlib.Main
	// configures it (-eager, COMMLIB_EAGER_LIMIT, else the default;
	// calibrate_eager.go); −1: every standard send rendezvous.
	EagerLimit int64             `json:"eager_limit"`
	Timer      Timer             `json:"timer"`
	Probe      probe.RawOverhead `json:"probe_overhead"`
	ClockSync  []ClockOffset     `json:"clock_sync"`
	// SlotLead is how far ahead of its first slot a stage is announced:
	// 1.2 × the 90th percentile of a command's time to the latest rank.
	SlotLead  int64      `json:"slot_lead_ns"`
	SelfTests []SelfTest `json:"self_tests"`
	// PingPong is the table, 1 B to MaxBytes; Fit its line, FitHow how the
	// LogGOPS parameters came from it, Residuals the LogGOPS model
	// (without the table) against the table.
	PingPong  []PingPongPoint `json:"ping_pong"`
	Fit       LineFit         `json:"fit"`
	FitHow    string          `json:"fit_how"`
	Residuals []Residual      `json:"residuals"`
	// Segments is the piecewise LogGP fit of the table (each range with
	// its residuals), written to the machine with the table.
	Segments SegmentFit `json:"segments"`
	// SendCall is a standard Send's call of SendCallBytes (the runtime's
	// eager limit, or the largest size; 0: not measured, no message is
	// eager), whose slope from 1 B (SendCall1)
	// is O; CallCost the mean of a 1 B Send and of a Recv of a message
	// that has arrived; StreamGap g.
	SendCall      Estimate `json:"send_call"`
	SendCallBytes int64    `json:"send_call_bytes"`
	SendCall1     float64  `json:"send_call_1_ns"`
	CallCost      float64  `json:"call_cost_ns"`
	StreamGap     Estimate `json:"stream_gap"`
	// Collectives are the collectives timed at the job's np.
	Collectives []CollectiveTiming `json:"collectives"`
	Memory      Memory             `json:"memory"`
	// Noise is the compute noise (calibrate_noise.go): in process only.
	Noise NoiseCalibration `json:"noise"`
	// AllocPerByte is the cost of allocating fresh memory (allocSamples);
	// AllocConverged false when its interval did not converge.
	AllocPerByte   Estimate         `json:"alloc_ns_per_byte"`
	AllocConverged bool             `json:"alloc_converged"`
	Machine        *machine.Machine `json:"machine"`
}

// calibration budgets and intervals, full and quick.
const (
	fullRelCI   = 0.02
	quickRelCI  = 0.05
	fullBudget  = 3 * time.Second
	quickBudget = 500 * time.Millisecond
	calRanks    = 2
	// minSlowBudget is the least budget of the quantities whose samples
	// are often invalid (self-test launches, on a loaded machine), even
	// in a quick calibration, and of the memory's in a full one (a triad
	// pass over 96 MiB a stream takes long).
	minSlowBudget = 2 * time.Second
)

// Calibrate measures this machine's in-process runtime (with
// opt.Launcher, the network of commlib's MPI runtime under it) and returns
// the calibration with its machine (origin calibrated). It refuses, returning
// an error and no machine (with what was measured until then, for the
// diagnosis), when a self-test fails ([SelfTestError]) or a quantity's
// confidence interval does not converge in its budget ([NoisyError]).
func Calibrate(opt CalibrateOptions) (*Calibration, error) {
	cal := &Calibration{Host: thisHost(), Started: time.Now().UTC(), Quick: opt.Quick, Buffers: opt.buffers(), Ranks: calRanks, Runtime: "in-process"}
	rule, logf := opt.rule()
	if opt.MaxBytes <= 0 {
		opt.MaxBytes = 4 << 20
	}
	logf("%s (%s, %d CPUs), load %s", cal.Host.Name, cal.Host.CPUModel, cal.Host.CPUs, cal.Host.LoadBefore)
	cal.Timer = measureTimer(100_000)
	cal.Probe = probe.Overhead()

	if opt.Launcher == nil {
		if err := procsError(runtime.GOMAXPROCS(0)); err != nil {
			return cal, err
		}
	}
	if opt.Launcher != nil {
		cal.Runtime = opt.Launcher.String()
		if err := cal.launchedNetwork(opt, logf); err != nil {
			return cal, err
		}
	} else if err := cal.network(opt, rule, logf); err != nil {
		return cal, err
	}

	logf("thread primitives, wake-up of blocked ranks")
	var ms measurements
	timer := timerCost()
	if err := ms.threads(timer); err != nil {
		return cal, fmt.Errorf("measuring thread costs: %v", err)
	}
	if err := ms.wakeups(); err != nil {
		return cal, fmt.Errorf("measuring the wake-up of blocked ranks: %v", err)
	}
	if opt.Launcher == nil {
		logf("the steal delay: a free core's delay in running a rank readied on a busy one")
		d, note, err := steal()
		if err != nil {
			return cal, fmt.Errorf("measuring the steal delay: %v", err)
		}
		ms.steal, ms.stealNote = d, note
	}
	ms.round()

	if opt.Launcher == nil {
		cal.noise(logf)
	} else {
		cal.Noise.NotMeasured = noiseLauncherText
	}

	if err := cal.node(rule, logf); err != nil {
		return cal, err
	}

	cal.Host.LoadAfter = loadAverage()
	cal.Took = time.Since(cal.Started)
	if err := cal.makeMachine(ms); err != nil {
		cal.Machine = nil
		return cal, err
	}
	return cal, nil
}

// since returns a clock of the time since now.
func sinceNow() func() time.Duration {
	t0 := time.Now()
	return func() time.Duration { return time.Since(t0) }
}

// network measures the in-process runtime's network with calRanks ranks.
func (cal *Calibration) network(opt CalibrateOptions, rule StopRule, logf func(string, ...any)) error {
	eager, err := eagerlimit.From(nil) // the environment's: predict's flags are not commlib's
	if err != nil {
		return err
	}
	cal.EagerLimit = runtimeLimit(eager)
	runErr := commlib.RunWith(commlib.Config{NP: calRanks, EagerLimit: eager, DeadlockGrace: 10 * time.Second}, func(c *commlib.Comm) {
		if e := cal.networkRanks(c, opt, rule, logf, true); c.Rank() == 0 {
			err = e
		}
	})
	if err == nil && runErr != nil {
		err = fmt.Errorf("the in-process runtime: %v", runErr)
	}
	return err
}

// CalibrateNetwork is the network part of a calibration, run by every rank
// of a commlib job (the MPI tester under a launcher, one process a rank):
// clock sync, self-tests, the ping-pong table between ranks 0 and 1, the
// calls and streams. Rank 0 leads and returns what it measured, without a
// machine; the others follow and return nil, nil.
func CalibrateNetwork(c *commlib.Comm, opt CalibrateOptions) (*Calibration, error) {
	rule, logf := opt.rule()
	if opt.MaxBytes <= 0 {
		opt.MaxBytes = 4 << 20
	}
	cal := &Calibration{Started: time.Now().UTC(), Quick: opt.Quick, Buffers: opt.buffers(), Ranks: c.Size(), RankHosts: gatherHosts(c)}
	if c.Rank() == 0 {
		cal.Host = thisHost()
		cal.Timer = measureTimer(100_000)
	}
	if c.Size() < 2 {
		return cal, fmt.Errorf("calibration needs at least 2 ranks, the job has %d", c.Size())
	}
	// Every rank reads the same command line and environment: all return
	// here, or none.
	eager, err := eagerlimit.From(flag.CommandLine)
	if err != nil {
		return cal, err
	}
	cal.EagerLimit = runtimeLimit(eager)
	err = cal.networkRanks(c, opt, rule, logf, false)
	if c.Rank() != 0 {
		return nil, nil
	}
	cal.Took = time.Since(cal.Started)
	return cal, err
}

// gatherHosts returns at rank 0 the host name of every rank (nil
// elsewhere).
func gatherHosts(c *commlib.Comm) []string {
	const width = 256
	name, _ := os.Hostname()
	send := make([]byte, width)
	copy(send, name)
	var all []byte
	if c.Rank() == 0 {
		all = make([]byte, width*c.Size())
	}
	c.Gather(send, all, 0)
	if c.Rank() != 0 {
		return nil
	}
	hosts := make([]string, c.Size())
	for r := range hosts {
		hosts[r] = strings.TrimRight(string(all[r*width:(r+1)*width]), "\x00")
	}
	return hosts
}

// networkRanks is run by every rank: rank 0 measures into cal, the others
// serve it. oneClock says that the ranks share one clock (goroutines of
// one process): their offsets must then be within their bounds.
func (cal *Calibration) networkRanks(c *commlib.Comm, opt CalibrateOptions, rule StopRule, logf func(string, ...any), oneClock bool) error {
	s := newRankState(c, opt.Cold)
	if c.Rank() != 0 {
		s.serve()
		return nil
	}
	defer s.command(cmdDone)
	return cal.measureNetwork(leader{s}, opt, rule, logf, oneClock)
}

func (cal *Calibration) measureNetwork(w leader, opt CalibrateOptions, rule StopRule, logf func(string, ...any), oneClock bool) error {
	logf("clock offsets by the fastest round trip")
	offs, err := w.syncClocks()
	if err != nil {
		return err
	}
	cal.ClockSync = offs
	// Before each slot measurement the clocks are synchronised again.
	resync := func() ([]int64, error) {
		offs, err := w.syncClocks()
		if err != nil {
			return nil, err
		}
		offsets := make([]int64, len(offs))
		for r, o := range offs {
			offsets[r] = o.Offset
		}
		return offsets, nil
	}

	// The lead of a stage: enough for its announcement to reach every
	// rank (a parked one wakes up), measured after a warm-up.
	w.announcements(3)
	slots := DefaultSlots
	slots.Lead = slotLead(w.announcements(20))
	cal.SlotLead = slots.Lead
	logf("self-tests WaitPatternNull, WaitPatternUp (slot schedule, a stage announced %s ahead)", nsText(float64(slots.Lead)))
	runners := map[string]stageRunner{}
	for i, name := range selfTestNames {
		runners[name] = leaderStage{w, i}
	}
	nullTol := math.Max(200, 10*cal.Timer.MedianRead)
	st := rule
	st.Budget = max(rule.Budget, minSlowBudget)
	tests, err := selfTests(runners, resync, slots, st, nullTol, sinceNow())
	cal.SelfTests = tests
	if err != nil {
		return err
	}
	// One process, one clock: every offset must be within its bound.
	for r, o := range offs {
		if oneClock && r > 0 && (o.Offset > o.RTT/2 || -o.Offset > o.RTT/2) {
			return &SelfTestError{Tests: append(tests, SelfTest{Name: fmt.Sprintf("clock offset of rank %d", r),
				Measured: Estimate{Mean: float64(o.Offset)}, Tol: float64(o.RTT / 2)})}
		}
	}

	step := int64(2)
	if opt.Quick {
		step = 4
	}
	var sizes []int64
	for s := int64(1); s <= opt.MaxBytes; s *= step {
		sizes = append(sizes, s)
	}
	if cal.PingPong, err = w.pingPongTable(sizes, rule, logf); err != nil {
		return err
	}

	logf("send calls, receives of arrived messages, a stream")
	r := rule
	r.Batch = 50
	one := func(what string, sample func(n int) ([]float64, error)) (Estimate, error) {
		e, _, err := measureUntil(what, samplerFunc(sample), r, sinceNow())
		return e, err
	}
	send1, err := one("Send call of 1 B", func(n int) ([]float64, error) { return w.sendCalls(1, n) })
	if err != nil {
		return err
	}
	recv1, err := one("Recv of an arrived 1 B message", w.recvCalls)
	if err != nil {
		return err
	}
	cal.SendCall1 = send1.Mean
	cal.CallCost = (send1.Mean + recv1.Mean) / 2
	// O from eager sends only: a rendezvous Send waits for the receiver.
	if eager := min(cal.eagerS(), opt.MaxBytes); eager >= 2 {
		cal.SendCallBytes = eager
		if _, err := w.sendCalls(int(eager), 5); err != nil {
			return err
		}
		r.Batch = 20
		if cal.SendCall, err = one(fmt.Sprintf("Send call of %d B", eager), func(n int) ([]float64, error) { return w.sendCalls(int(eager), n) }); err != nil {
			return err
		}
	}
	r.Batch = 10
	if cal.StreamGap, err = one("stream of 1 B messages", func(n int) ([]float64, error) { return w.streamGaps(200, n) }); err != nil {
		return err
	}
	if !opt.Collectives {
		return nil
	}
	logf("collectives at np=%d, in slots", w.np())
	return cal.measureCollectives(w, resync, slots, st, logf)
}

// pingPongTable measures the one-way time of each size: its first round
// trip apart, a warm-up, then half round trips in batches until rule
// stops, each batch's first round trip left out (rank 1 wakes up from the
// command's broadcast in it).
func (w leader) pingPongTable(sizes []int64, rule StopRule, logf func(string, ...any)) ([]PingPongPoint, error) {
	var table []PingPongPoint
	for _, s := range sizes {
		size := int(s)
		// No round trip: every rank sets up its buffers (a cold pool
		// takes milliseconds to touch) and collects the garbage, so that
		// the first round trip measures the first call, not a peer's
		// allocation or a collection.
		if _, err := w.pingPongs(size, 0); err != nil {
			return nil, err
		}
		first, err := w.pingPongs(size, 1)
		if err != nil {
			return nil, err
		}
		if _, err := w.pingPongs(size, 5); err != nil { // warm-up
			return nil, err
		}
		r := rule
		r.Batch = min(max(rule.Batch*int(1<<16/(s+1<<10)), 5), 500) // about 1 ms a batch
		e, _, err := measureUntil(fmt.Sprintf("ping-pong of %d B", s), samplerFunc(func(n int) ([]float64, error) { return w.pingPongSamples(size, n) }), r, sinceNow())
		if err != nil {
			return nil, err
		}
		logf("ping-pong %8d B: one-way %s ± %.1f %% (%d round trips)", s, nsText(e.Mean), 100*e.RelHalfWidth(), e.Runs)
		table = append(table, PingPongPoint{Bytes: s, OneWay: e, FirstRTT: 2 * first[0]})
	}
	return table, nil
}

// MeasurePingPong measures the in-process runtime's ping-pong at sizes as
// Calibrate does (opt's Quick, RelCI, Budget and Log apply): to check a
// calibration against sizes it did not measure.
func MeasurePingPong(sizes []int64, opt CalibrateOptions) ([]PingPongPoint, error) {
	rule, logf := opt.rule()
	var table []PingPongPoint
	var err error
	runErr := commlib.RunWith(commlib.Config{NP: calRanks, DeadlockGrace: 10 * time.Second}, func(c *commlib.Comm) {
		s := newRankState(c, opt.Cold)
		if c.Rank() != 0 {
			s.serve()
			return
		}
		defer s.command(cmdDone)
		table, err = leader{s}.pingPongTable(sizes, rule, logf)
	})
	if err == nil && runErr != nil {
		err = fmt.Errorf("the in-process runtime: %v", runErr)
	}
	return table, err
}

// buffers names the buffer policy of opt.
func (opt CalibrateOptions) buffers() string {
	if opt.Cold {
		return "cold"
	}
	return "hot"
}

// rule is the stopping rule of opt, and its progress log.
func (opt CalibrateOptions) rule() (StopRule, func(string, ...any)) {
	rule := StopRule{Min: 30, Max: 200_000, RelCI: fullRelCI, Budget: fullBudget, Trim: 0.25, Level: 0.95, Batch: 50}
	if opt.Quick {
		rule.Min, rule.RelCI, rule.Budget = 20, quickRelCI, quickBudget
	}
	if opt.RelCI > 0 {
		rule.RelCI = opt.RelCI
	}
	if opt.Budget > 0 {
		rule.Budget = opt.Budget
	}
	logf := func(format string, args ...any) {
		if opt.Log != nil {
			fmt.Fprintf(opt.Log, "calibrate: "+format+"\n", args...)
		}
	}
	return rule, logf
}

// makeMachine fits the table and builds the machine.
func (cal *Calibration) makeMachine(ms measurements) error {
	sizes, times := make([]int64, len(cal.PingPong)), make([]float64, len(cal.PingPong))
	for i, p := range cal.PingPong {
		sizes[i], times[i] = p.Bytes, p.OneWay.Mean
	}
	// In-process the runtime's eager limit is the protocol's exactly: S
	// is pinned to it, and only a jump there is a change of protocol.
	known := cal.inProcess()
	var fit LineFit
	var err error
	if known {
		fit, err = fitLineAt(sizes, times, cal.eagerS())
	} else {
		fit, err = fitLine(sizes, times)
	}
	if err != nil {
		return err
	}
	cal.Fit = fit
	sendPerByte := 0.0
	if cal.SendCallBytes > 1 {
		sendPerByte = (cal.SendCall.Mean - cal.SendCall1) / float64(cal.SendCallBytes-1)
	}
	lg, how := logGOPS(fit, LevelInputs{SendPerByte: sendPerByte, CallCost: cal.CallCost, StreamGap: cal.StreamGap.Mean, S: cal.eagerS(), SKnown: known})
	cal.FitHow = how
	cal.Residuals = residuals(&lg, cal.PingPong)
	// The ranges break at the change of protocol: the runtime's S when it
	// is known, else the jump the line found (none: −1).
	segLimit := fit.EagerLimit
	if known {
		segLimit = cal.eagerS()
	}
	if cal.Segments, err = fitSegments(sizes, times, SegmentTolerance, segLimit); err != nil {
		return err
	}
	segments := cal.Segments.machine()
	table := make(machine.Table, len(cal.PingPong))
	for i, p := range cal.PingPong {
		table[i] = machine.TablePoint{Bytes: p.Bytes, Time: trace.Time(math.Round(p.OneWay.Mean)) * trace.Nanosecond}
	}
	if n := len(table); n >= 2 && table[n-1].Time < table[n-2].Time {
		table[n-1].Time = table[n-2].Time // the last segment extrapolates: never downwards
	}
	h := cal.Host
	m := &machine.Machine{
		Name:        "local",
		Description: "this machine's in-process runtime (ranks as goroutines of one process), calibrated",
		Source: fmt.Sprintf("predict calibrate%s on %s (%s, %d CPUs, %s, %s, clock source %s) at %s in %s, load %s: "+
			"%s; MPIPerf's method (seed-001): clock offsets by the fastest round trip, slot schedule, max over ranks, "+
			"WaitPatternNull/Up passed; ping-pong 1 B to %d B with %s, each size's first round trip apart, one-way = trimmed mean (25 %% each tail) "+
			"of half round trips to ±%.1f %% at 95 %%; LogGOPS by relative least squares: %s; %s; g from streams; %s; "+
			"threads (and in-process wake-up) timed in loops, in the calibrating process%s; %s; %s",
			quickText(cal.Quick), h.Name, h.CPUModel, h.CPUs, h.OS, h.GoVersion, h.ClockSource, cal.Started.Format(time.RFC3339),
			cal.Took.Round(time.Millisecond), h.LoadBefore, cal.runtimeText(), cal.PingPong[len(cal.PingPong)-1].Bytes, bufferText(cal.Buffers),
			100*maxRelCI(cal.PingPong), how, cal.Segments.text(), cal.oText(), ms.stealText(cal.inProcess()), cal.Memory.text(), cal.Noise.text()),
		Origin:          machine.OriginCalibrated,
		Nodes:           1,
		CoresPerNode:    runtime.NumCPU(),
		Mapping:         machine.Block,
		CPUFactor:       1,
		Intra:           lg,
		Inter:           lg,
		Table:           machine.Tables{Intra: table, Inter: table, IntraSegments: segments, InterSegments: segments},
		Threads:         ms.thread,
		Wakeup:          ms.wake,
		StealDelay:      ms.steal,
		Noise:           cal.Noise.machine(),
		MemoryBandwidth: cal.Memory.bandwidth(),
		Collectives:     machine.LinearCollectives(),
	}
	if !known {
		// Under MPI: the job's nodes, MPI's collectives (auto), and no
		// wake-up curve (MPI libraries poll) nor noise (not measured
		// across processes).
		m.Name = "mpi"
		m.Description = "commlib's MPI runtime, calibrated under " + cal.Runtime
		m.Nodes = nodesOf(cal.RankHosts)
		if m.Nodes > 1 {
			m.RanksPerNode = m.CoresPerNode
		}
		m.Wakeup, m.Collectives, m.Noise, m.StealDelay = nil, nil, nil, 0
	}
	cal.Machine = m
	return m.Validate()
}

// runtimeText says what ran the ranks and, under a launcher, which level
// the ping-pong measured.
func (cal *Calibration) runtimeText() string {
	if cal.inProcess() {
		return fmt.Sprintf("the in-process runtime (%d ranks as goroutines)", cal.Ranks)
	}
	level := "ranks 0 and 1 on one node (intra-node figures, written for both levels)"
	if len(cal.RankHosts) > 1 && cal.RankHosts[0] != cal.RankHosts[1] {
		level = fmt.Sprintf("ranks 0 and 1 on %s and %s (inter-node figures, written for both levels)", cal.RankHosts[0], cal.RankHosts[1])
	}
	return fmt.Sprintf("commlib's MPI runtime under %s (%d ranks), %s", cal.Runtime, cal.Ranks, level)
}

// oText says where O came from.
func (cal *Calibration) oText() string {
	if cal.SendCallBytes < 2 {
		return "O 0 (no message is eager: no Send call without its receiver)"
	}
	return fmt.Sprintf("O from the Send call at %d B", cal.SendCallBytes)
}

// inProcess says that the network measured is the in-process runtime's.
func (cal *Calibration) inProcess() bool { return cal.Runtime == "" || cal.Runtime == "in-process" }

// bufferText says what a buffer policy is.
func bufferText(policy string) string {
	if policy == "cold" {
		return "cold buffers (a rotation through 64 MiB, beyond the caches)"
	}
	return "hot buffers (one per rank and size, reused)"
}

func quickText(quick bool) string {
	if quick {
		return " --quick"
	}
	return ""
}

// maxRelCI is the widest relative interval of the table.
func maxRelCI(t []PingPongPoint) float64 {
	w := 0.0
	for _, p := range t {
		w = math.Max(w, p.OneWay.RelHalfWidth())
	}
	return w
}

// nsText prints a time in ns with a readable unit.
func nsText(ns float64) string {
	return machine.FormatDuration(trace.Time(math.Round(ns)) * trace.Nanosecond)
}

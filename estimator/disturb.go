// This file defines how the timing pass tells a measurement disturbed by
// the machine's other load: the probed and the plain run execute the same
// work, so beyond what the probes themselves cost their spans must agree.
// A probed run far slower (or far faster) than its plain run was slowed
// by something else, and so were the fragments it timed.

package estimator

import (
	"fmt"
	"time"

	"github.com/predict-tools/predict/trace"
)

// Disturbance thresholds, as the ratio of the longer of the two runs'
// spans (the probed one less its probes' cost) to the shorter.
const (
	// RemeasureRatio makes the timing pass run both programs again (the
	// fastest run of each is kept), up to remeasureRounds more times.
	RemeasureRatio = 1.5
	// RefuseRatio (with refuseFloor) marks a measurement too disturbed to
	// keep: CheckDisturbance reports it; the automatic timing pass of run
	// and scale does not cache it, and every reading warns of it.
	RefuseRatio = 2.0
	// disturbanceFloor: differences below it are the noise of starting
	// and ending a run, whatever the ratio.
	disturbanceFloor = 2 * trace.Millisecond
	// refuseFloor: a measurement is refused only when the disturbance
	// reaches a time that matters, not for a run of a few milliseconds
	// that a busy machine slowed (it is warned about).
	refuseFloor     = 20 * trace.Millisecond
	remeasureRounds = 2
)

// ProbeCostPS estimates by how much the probes lengthen the probed run's
// span: each fragment execution costs a probe pair, each sampled
// iteration a sampled-iteration probe, spread over the ranks that run at
// the same time.
func (p *ProfileFile) ProbeCostPS() int64 {
	var cost float64
	for _, f := range p.Fragments {
		cost += float64(f.Executions) * float64(p.Overhead.SegPS)
	}
	for _, l := range p.Loops {
		cost += float64(l.Samples) * float64(p.Overhead.IterPS)
	}
	return int64(cost / float64(max(p.NP, 1)))
}

// Disturbance returns the ratio of the longer of the plain run's span and
// the probed run's span less the probes' cost to the shorter (1 for runs
// that agree, or that differ by less than a run's start-up noise).
func (p *ProfileFile) Disturbance() float64 {
	plain, probed := p.PlainRunTime()
	probed -= p.ProbeCostPS()
	if plain <= 0 || probed <= 0 {
		return 1
	}
	if d := plain - probed; max(d, -d) < int64(disturbanceFloor) {
		return 1
	}
	return float64(max(plain, probed)) / float64(min(plain, probed))
}

// disturbanceNote describes the disturbance of the profile's runs and
// its cause, where the machine's CPU accounting tells it.
func (p *ProfileFile) disturbanceNote() string {
	plain, probed := p.PlainRunTime()
	which := "slower"
	if probed-p.ProbeCostPS() < plain {
		which = "faster"
	}
	note := fmt.Sprintf("the run with probes took %v and the run without %v: beyond the probes' %v, it ran %.1f× %s",
		time.Duration(probed/1000), time.Duration(plain/1000), time.Duration(p.ProbeCostPS()/1000), p.Disturbance(), which)
	switch load, known := p.loaded(); {
	case load:
		return note + ", so the machine's other load disturbed the measurement"
	case known && which == "slower":
		return note + " on an otherwise quiet machine: the probes perturb this program more than they cost alone (fragments about as small as a probe, code they keep the compiler from optimizing), so its fragment times read slow"
	default:
		return note + ": the machine's other load or the probes themselves disturbed the measurement"
	}
}

// loaded reports whether other processes took cores the profiled ranks
// needed (load.go), and whether the profile says (CPUs and OtherCores
// recorded).
func (p *ProfileFile) loaded() (loaded, known bool) {
	if p.CPUs <= 0 {
		return false, false
	}
	_, loaded = loadNote(p.OtherCores, p.NP, p.CPUs)
	return loaded, true
}

// MeasuredUnderLoad reports a profile whose runs other processes took
// cores from (recorded by the timing pass; false where not recorded).
func (p *ProfileFile) MeasuredUnderLoad() bool {
	loaded, _ := p.loaded()
	return loaded
}

// refused reports a disturbance beyond RefuseRatio that is more than
// refuseFloor and that load explains (or may: a profile that does not
// record the load). Probes that perturb a program on a quiet machine are
// the timing pass's own limit: warned about, never refused, since
// measuring again gives the same.
func (p *ProfileFile) refused() bool {
	plain, probed := p.PlainRunTime()
	gap := probed - p.ProbeCostPS() - plain
	load, known := p.loaded()
	return p.Disturbance() > RefuseRatio && max(gap, -gap) > int64(refuseFloor) && (load || !known)
}

// CheckDisturbance reports a profile whose runs disagree by more than
// RefuseRatio (and by more than 20 ms) under load: a measurement not to
// keep. It is said, never silently used: the timing pass writes the
// warning into the profile, and every use of the profile repeats it.
func (p *ProfileFile) CheckDisturbance() error {
	if !p.refused() {
		return nil
	}
	return fmt.Errorf("run_ps and plain_run_ps: %s (more than %.1f×); measure again on a quieter machine (predict profile, or --no-cache)", p.disturbanceNote(), RefuseRatio)
}

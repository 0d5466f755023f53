// This file defines how a profile tells a measurement disturbed by the
// machine's other load: the probed and the plain run execute the same
// work, so beyond what the probes themselves cost their spans must agree.
// A probed run far slower (or far faster) than its plain run was slowed
// by something else, and so were the fragments it timed.

package profile

import (
	"fmt"
	"time"

	"github.com/predict-tools/predict/trace"
)

// Disturbance thresholds, as the ratio of the longer of the two runs'
// spans (the probed one less its probes' cost) to the shorter.
const (
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
	refuseFloor = 20 * trace.Millisecond
)

// ProbeCostPS estimates by how much the probes lengthen the probed run's
// span: each fragment execution costs a probe pair, each sampled
// iteration a sampled-iteration probe, spread over the ranks that run at
// the same time.
func (p *File) ProbeCostPS() int64 {
	if p.ProbesPS > 0 {
		return p.ProbesPS / int64(max(p.NP, 1))
	}
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
func (p *File) Disturbance() float64 {
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

// ProbedFaster reports a disturbance (Disturbance above 1) whose probed
// run, less its probes' cost, was the shorter: its fragments read fast.
func (p *File) ProbedFaster() bool {
	plain, probed := p.PlainRunTime()
	return p.Disturbance() > 1 && probed-p.ProbeCostPS() < plain
}

// DisturbanceNote describes the disturbance of the profile's runs and
// its cause, where the machine's CPU accounting tells it.
func (p *File) DisturbanceNote() string {
	plain, probed := p.PlainRunTime()
	faster := p.ProbedFaster()
	which := "slower"
	if faster {
		which = "faster"
	}
	note := fmt.Sprintf("the run with probes took %v and the run without %v: beyond the probes' %v, it ran %.1f× %s",
		time.Duration(probed/1000), time.Duration(plain/1000), time.Duration(p.ProbeCostPS()/1000), p.Disturbance(), which)
	switch _, load, known := p.OtherLoad(); {
	case load:
		return note + ", so the machine's other load disturbed the measurement"
	case known && !faster:
		return note + " on an otherwise quiet machine: the probes perturb this program more than they cost alone (fragments about as small as a probe, code they keep the compiler from optimizing), so its fragment times read slow"
	case known:
		return note + " on an otherwise quiet machine: the program ran faster with its probes than without them (its code placed or compiled differently in the two builds, or its memory laid out differently), so its fragment times read fast"
	default:
		return note + ": the machine's other load or the probes themselves disturbed the measurement"
	}
}

// DisturbanceEffect says what the disturbance does to the fragments'
// times: a probed run slower than its plain run reads them slow by up to
// the ratio less one, a faster one fast by up to one less its inverse.
// Where the timing pass scaled them to the plain run (Scale), that run's
// total is theirs all the same, and the effect is on how it shares out.
func (p *File) DisturbanceEffect() string {
	d := p.Disturbance()
	s := fmt.Sprintf("fragment times may read up to %.0f%% slow", 100*(d-1))
	if p.ProbedFaster() {
		s = fmt.Sprintf("fragment times may read up to %.0f%% fast", 100*(1-1/d))
	}
	if p.Scale > 0 && p.Scale != 1 {
		s += fmt.Sprintf(" (scaled by %.3f to the run without probes, their total is that run's; how it shares out among them is what may be off)", p.Scale)
	}
	return s
}

// OtherLoad reports whether other processes took cores the profiled
// ranks needed, with a note that says so, and whether the profile says
// (CPUs and OtherCores recorded).
func (p *File) OtherLoad() (note string, loaded, known bool) {
	note, loaded = loadNote(p.OtherCores, p.NP, p.CPUs)
	if p.CPUs <= 0 {
		return note, false, false
	}
	return note, loaded, true
}

// loadNote says what the other load was and whether it took cores the
// run needed: np ranks want min(np, cpus) cores; what other processes
// used beyond the rest, by more than half a core, slowed the run.
func loadNote(other float64, np, cpus int) (string, bool) {
	spare := float64(cpus - min(np, cpus))
	if other <= spare+0.5 {
		return "", false
	}
	return fmt.Sprintf("other processes kept %.1f of the %d cores busy while the program ran at np=%d (%.1f were spare): its fragments read slower than on a quiet machine",
		other, cpus, np, spare), true
}

// MeasuredUnderLoad reports a profile whose runs other processes took
// cores from (recorded by the timing pass; false where not recorded).
func (p *File) MeasuredUnderLoad() bool {
	_, loaded, _ := p.OtherLoad()
	return loaded
}

// RefuseSpread is the spread of the plain runs' compute beyond which a
// profile is refused (CheckDisturbance).
const RefuseSpread = 0.25

// refused reports a disturbance beyond RefuseRatio that is more than
// refuseFloor and that load explains (or may: a profile that does not
// record the load). Probes that perturb a program on a quiet machine are
// the timing pass's own limit: warned about, never refused, since
// measuring again gives the same.
func (p *File) refused() bool {
	plain, probed := p.PlainRunTime()
	gap := probed - p.ProbeCostPS() - plain
	_, load, known := p.OtherLoad()
	return p.Disturbance() > RefuseRatio && max(gap, -gap) > int64(refuseFloor) && (load || !known)
}

// CheckDisturbance reports a profile whose runs disagree by more than
// RefuseRatio (and by more than 20 ms) under load: a measurement not to
// keep. It is said, never silently used: the timing pass writes the
// warning into the profile, and every use of the profile repeats it.
func (p *File) CheckDisturbance() error {
	if p.Runs > 1 && p.SpreadRel > RefuseSpread {
		return fmt.Errorf("spread_rel: the runs without probes spread by %.0f%% over %d runs (more than %.0f%%): a measurement not to keep; measure again on a quieter machine (predict profile, or --no-cache)", 100*p.SpreadRel, p.Runs, 100*RefuseSpread)
	}
	if !p.refused() {
		return nil
	}
	return fmt.Errorf("run_ps and plain_run_ps: %s (more than %.1f×); measure again on a quieter machine (predict profile, or --no-cache)", p.DisturbanceNote(), RefuseRatio)
}

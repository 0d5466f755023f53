// This file defines the calibration's measurement of the steal delay
// (machine.StealDelay): how long a core that frees takes to run a rank
// that a busy rank readied to run next on its own core.

package estimator

import (
	"fmt"
	"runtime"
	"slices"
	"time"

	"github.com/predict-tools/predict/commlib"
	"github.com/predict-tools/predict/machine"
	"github.com/predict-tools/predict/trace"
)

// Go's ready puts a goroutine it wakes in the waker's P's runnext slot; a
// P that has nothing to run steals it from there only on its last round
// of stealing, after a pause (runtime.runqgrab: usleep(3), "to ensure
// that pp isn't about to run the g we are about to steal"), which Linux
// rounds up by the thread's timer slack (50 µs by default). So on this
// development VM a goroutine readied by one that goes on computing waited
// 72–77 µs (median) after another P freed before it ran there, however
// long its readier computed on (150 µs to 3 ms; a program of three
// goroutines and a channel, 2026-11-28), and steal measures 78–80 µs.
//
// stealTrials are the trials of the measurement and stealBursts its
// bursts: the readier readies the sleeper at stealBursts[0] into its
// burst and computes stealBursts[2] more; the rank that frees a core
// blocks at stealBursts[1]. The other ranks compute throughout, so that
// every core is busy until that block.
var (
	stealTrials = 60
	stealBursts = [3]time.Duration{100 * time.Microsecond, 200 * time.Microsecond, time.Millisecond}
)

// steal measures the steal delay of the in-process runtime: with one rank
// per P computing and one more rank blocked in Recv, rank 1 sends to the
// blocked rank and computes on, and rank 0 blocks: the delay is from rank
// 0's block to the blocked rank's return from Recv, the median over the
// trials where every rank was on a core when rank 0 blocked (the
// readied rank returned after it). note says how it was measured, or why
// not (one P has no other to steal; fewer than half the trials valid):
// the delay is then 0.
func steal() (delay trace.Time, note string, err error) {
	procs := runtime.GOMAXPROCS(0)
	if procs < 2 {
		return 0, "steal delay not measured (GOMAXPROCS=1: no other P to steal a rank): 0", nil
	}
	np := procs + 1
	sleeper := np - 1
	blocked := make([]int64, stealTrials) // rank 0's block, ns since start
	ran := make([]int64, stealTrials)     // the sleeper's return
	start := time.Now()
	now := func() int64 { return int64(time.Since(start)) }
	err = commlib.Run(np, func(c *commlib.Comm) {
		one := make([]byte, 1)
		for i := range stealTrials {
			c.Barrier()
			switch r := c.Rank(); {
			case r == sleeper:
				c.Recv(one, 1, 0)
				ran[i] = now()
			case r == 0:
				computeFor(stealBursts[1])
				blocked[i] = now()
				c.Recv(one, 1, 1)
			case r == 1:
				computeFor(stealBursts[0])
				c.Send(one, sleeper, 0)
				computeFor(stealBursts[2])
				c.Send(one, 0, 1)
			default:
				computeFor(stealBursts[1] + stealBursts[2])
			}
		}
	})
	if err != nil {
		return 0, "", err
	}
	var ds []trace.Time
	for i := range stealTrials {
		if d := ran[i] - blocked[i]; d > 0 && i > 0 { // the first warms up
			ds = append(ds, trace.Time(d)*trace.Nanosecond)
		}
	}
	if 2*len(ds) < stealTrials-1 {
		return 0, fmt.Sprintf("steal delay not measured (only %d of %d trials had every core busy when a core freed): 0", len(ds), stealTrials-1), nil
	}
	slices.Sort(ds)
	d := ds[len(ds)/2]
	if d >= 10*trace.Nanosecond {
		d = (d + trace.Nanosecond/2) / trace.Nanosecond * trace.Nanosecond
	}
	return d, fmt.Sprintf("steal delay %s (median of %d trials: a rank readied by a computing rank, run by the core that frees next)", machine.FormatDuration(d), len(ds)), nil
}

// stealText says how the steal delay was measured, for the machine's
// source: nothing under a launcher (MPI's ranks are processes).
func (ms *measurements) stealText(inProcess bool) string {
	if !inProcess || ms.stealNote == "" {
		return ""
	}
	return "; " + ms.stealNote
}

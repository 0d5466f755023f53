//go:build mpi

// This file defines the MPI runtime's run: Main under mpirun, one rank per
// process, on the process's main thread.

package commlib

/*
#include "commlib_mpi.h"
*/
import "C"

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"time"

	"github.com/predict-tools/predict/trace"
)

func init() {
	// MPI is initialised with MPI_THREAD_FUNNELED: every MPI call comes
	// from the thread that initialised it. Locking the OS thread in init
	// runs main, and so every rank's body, on that thread.
	runtime.LockOSThread()
	runMain = runMPI
}

var mpiStart = float64(C.MPI_Wtime())

// clock is MPI_Wtime since the process started.
func clock() float64 { return float64(C.MPI_Wtime()) - mpiStart }

// runMPI runs body as this process's rank of the MPI job. It returns only
// errors of the set-up and of a successful run's trace; a failing rank
// reports its error and aborts the job (MPI_Abort), so that no rank hangs.
func runMPI(cfg Config, body func(c *Comm)) error {
	matchEagerLimit(cfg.EagerLimit)
	var provided C.int
	if code := C.cl_init(&provided); code != C.MPI_SUCCESS {
		return fmt.Errorf("MPI_Init_thread: %s", mpiErrorString(code))
	}
	if provided < C.MPI_THREAD_FUNNELED {
		return fmt.Errorf("MPI_Init_thread: the MPI library provides thread level %d, commlib needs MPI_THREAD_FUNNELED", int(provided))
	}
	var rank, size C.int
	C.MPI_Comm_rank(C.cl_comm_world(), &rank)
	C.MPI_Comm_size(C.cl_comm_world(), &size)
	t := &mpiTransport{rank: int(rank), size: int(size), tagUB: int(C.cl_tag_ub())}
	fail := func(err error) error {
		fmt.Fprintf(os.Stderr, "commlib: %v\n", err)
		t.abort(err)
		return err
	}
	if cfg.NP != 1 && cfg.NP != t.size {
		return fail(fmt.Errorf("rank %d: -np %d (or COMMLIB_NP): under MPI the launcher sets the number of ranks, here %d", t.rank, cfg.NP, t.size))
	}
	if v := os.Getenv("COMMLIB_TIMEOUT"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return fail(fmt.Errorf("rank %d: COMMLIB_TIMEOUT=%q: want a duration such as 30s", t.rank, v))
		}
		t.watch = &watchdog{rank: t.rank, timeout: d}
		go t.watch.run()
	}
	cfg.NP = t.size
	w, worldShared, hs := newWorld(cfg)
	spareP()
	w.tr = t
	worldShared.native = C.cl_comm_world()
	var offset trace.Time
	if w.tracer != nil && w.tracer.file != "" {
		offset = t.clockOffset(w)
	}

	// The rank's body runs here, on the main thread; pool threads are
	// goroutines, and the in-process deadlock detection still watches
	// them (a rank whose threads all wait for each other).
	w.running.Store(1)
	stopWatch := make(chan struct{})
	go w.watch(stopWatch)
	go func() {
		// A pool thread's failure cannot interrupt the main thread inside
		// MPI: report it and end the job after a moment.
		select {
		case <-stopWatch:
		case <-w.aborted:
			time.Sleep(time.Second)
			fail(w.failure)
		}
	}()
	c := &Comm{w: w, p: w.procs[t.rank], sh: worldShared, rank: t.rank}
	func() {
		defer w.goroutineDone()
		defer c.p.finished.Store(true)
		defer w.recoverRank(t.rank, 0)
		for _, h := range hs {
			if h.RankStart != nil {
				h.RankStart(t.rank, t.size)
			}
		}
		body(c)
		if c.p.pool != nil {
			c.p.pool.Close()
		}
		for _, h := range hs {
			if h.RankEnd != nil {
				h.RankEnd(t.rank)
			}
		}
	}()
	close(stopWatch)
	if err := w.failure; err != nil {
		for _, h := range hs {
			if h.RunEnd != nil {
				h.RunEnd(err)
			}
		}
		return fail(err)
	}
	var err error
	if w.tracer != nil {
		err = t.finishTrace(c, offset)
	}
	if w := t.watch; w != nil {
		w.enter("Finalize (the rank's body has returned)", waitNoPeer, 0)
	}
	C.MPI_Finalize()
	for _, h := range hs {
		if h.RunEnd != nil {
			h.RunEnd(err)
		}
	}
	return err
}

// spareP gives the Go scheduler a second P where it has one (mpirun binds
// a rank to one core, so GOMAXPROCS is 1) and the user did not set
// GOMAXPROCS. While the rank's goroutine is inside an MPI call, its P
// then is the only one busy: sysmon leaves it alone. With one P it took
// the P from every call that lasted one of its ticks (20 µs: messages of
// 256 KiB and more) and woke a thread for it, on the rank's core: 5,600-7,000
// context switches a rank for the ping-pong from 256 KiB to 4 MiB against
// 2,400-2,800 with two Ps (C: 1,900-3,300). The world keeps the Ps it
// started with (newWorld): a rank's threads that wait in commlib spin
// only while fewer than those run, so they do not spin against each other
// on the one core.
func spareP() {
	if os.Getenv("GOMAXPROCS") == "" && runtime.GOMAXPROCS(0) < 2 {
		runtime.GOMAXPROCS(2)
	}
}

// matchEagerLimit sets Open MPI's eager limits to commlib's (-eager, else
// DefaultEagerLimit), unless the user set them: a standard send waits for
// its receive above the same size in both runtimes, so a program that
// relies on buffering small sends (a ring of Sends) runs under both. The
// limits count MPI's match header too.
func matchEagerLimit(limit int) {
	switch {
	case limit == 0:
		limit = DefaultEagerLimit
	case limit < 0:
		limit = 0
	}
	for _, btl := range []string{"vader", "sm", "tcp"} {
		name := "OMPI_MCA_btl_" + btl + "_eager_limit"
		if os.Getenv(name) == "" {
			os.Setenv(name, strconv.Itoa(limit+64))
		}
	}
}

// run checks the rank's current blocking call every tenth of the timeout;
// one that has lasted the timeout is reported, and the job ends a moment
// later (the others' watchdogs report their own calls meanwhile).
func (w *watchdog) run() {
	tick := time.NewTicker(w.timeout / 10)
	defer tick.Stop()
	for range tick.C {
		b := w.cur.Load()
		if b == nil || time.Since(b.since) < w.timeout {
			continue
		}
		fmt.Fprintf(os.Stderr, "commlib: rank %d: no progress for %v (COMMLIB_TIMEOUT): blocked in %s%s at %s\n",
			w.rank, time.Since(b.since).Round(time.Millisecond), b.op, b.detail(), shortSite(siteOf(b.pcs[:b.npcs])))
		time.Sleep(min(w.timeout, 2*time.Second))
		C.cl_abort(3)
		os.Exit(3)
	}
}

func (b *blockedCall) detail() string {
	switch {
	case b.peer == waitNoPeer || b.peer < -2:
		return ""
	case b.peer == AnySource:
		return "(source=AnySource tag=" + tagString(b.tag) + ")"
	case b.peer == ProcNull:
		return ""
	}
	return "(peer=" + strconv.Itoa(b.peer) + " tag=" + tagString(b.tag) + ")"
}

func tagString(tag int) string {
	if tag == AnyTag {
		return "AnyTag"
	}
	return strconv.Itoa(tag)
}

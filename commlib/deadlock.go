// This file defines the deadlock report.

package commlib

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// BlockedCall is one call that waits forever in a deadlocked run.
type BlockedCall struct {
	Rank     int    // world rank
	Thread   int    // 0 main, 1+tid for a pool thread
	Op       string // e.g. "Recv"
	Site     string // call site file:line
	Detail   string // what it waits for, e.g. "source=1 tag=7 comm=world"
	WaitsFor string // who could release it, e.g. "rank 1 (blocked in Recv)"
}

// DeadlockError reports a run in which every rank is blocked or finished and
// no blocked call can complete.
type DeadlockError struct {
	Blocked  []BlockedCall // sorted by rank, then thread
	Finished []int         // ranks whose body had returned
}

func (e *DeadlockError) Error() string {
	var b strings.Builder
	b.WriteString("deadlock: every rank is blocked or finished and no blocked call can complete")
	for _, bc := range e.Blocked {
		who := fmt.Sprintf("rank %d", bc.Rank)
		if bc.Thread > 0 {
			who += fmt.Sprintf(" thread %d", bc.Thread-1)
		}
		fmt.Fprintf(&b, "\n  %s: %s(%s) at %s", who, bc.Op, bc.Detail, shortSite(bc.Site))
		if bc.WaitsFor != "" {
			fmt.Fprintf(&b, "\n      waits for %s", bc.WaitsFor)
		}
	}
	if len(e.Finished) > 0 {
		fmt.Fprintf(&b, "\n  finished: ranks %s", rankList(e.Finished))
	}
	return b.String()
}

// deadlock builds the report from the parked waiters, or returns nil when
// only idle pool workers are parked.
func (w *world) deadlock() *DeadlockError {
	blockedIn := make(map[int]string) // world rank → op its main thread waits in
	var calls []BlockedCall
	var waiters []*waiter
	w.parked.Range(func(k, _ any) bool {
		wt := k.(*waiter)
		if !wt.idle {
			waiters = append(waiters, wt)
			if wt.thread == 0 {
				blockedIn[wt.rank] = wt.op
			}
		}
		return true
	})
	if len(waiters) == 0 {
		return nil
	}
	d := &DeadlockError{}
	for _, p := range w.procs {
		if p.finished.Load() {
			d.Finished = append(d.Finished, p.rank)
		}
	}
	state := func(worldRank int) string {
		switch {
		case w.procs[worldRank].finished.Load():
			return fmt.Sprintf("rank %d (finished)", worldRank)
		case blockedIn[worldRank] != "":
			return fmt.Sprintf("rank %d (blocked in %s)", worldRank, blockedIn[worldRank])
		}
		return fmt.Sprintf("rank %d", worldRank)
	}
	for _, wt := range waiters {
		bc := BlockedCall{Rank: wt.rank, Thread: wt.thread, Op: wt.op, Site: siteOf(wt.pcs[:wt.npcs])}
		var detail []string
		if wt.comm != nil {
			if wt.peer >= 0 {
				detail = append(detail, fmt.Sprintf("peer=%d", wt.peer))
				bc.WaitsFor = state(wt.comm.group[wt.peer])
			} else if wt.peer == AnySource && wt.coll == nil {
				detail = append(detail, "source=AnySource")
				bc.WaitsFor = "any rank of " + wt.comm.name
			}
			switch {
			case wt.coll != nil || wt.peer == waitNoPeer:
			case wt.tag == AnyTag:
				detail = append(detail, "tag=AnyTag")
			default:
				detail = append(detail, fmt.Sprintf("tag=%d", wt.tag))
			}
			detail = append(detail, "comm="+wt.comm.name)
			if wt.coll != nil {
				detail = append(detail, fmt.Sprintf("collective #%d", wt.coll.seq))
				var missing []string
				wt.comm.mu.Lock()
				for r, ok := range wt.coll.arrived {
					if !ok {
						missing = append(missing, state(wt.comm.group[r]))
					}
				}
				wt.comm.mu.Unlock()
				if len(missing) > 0 {
					bc.WaitsFor = "ranks that have not entered it: " + strings.Join(missing, ", ")
				}
			}
		}
		bc.Detail = strings.Join(detail, " ")
		calls = append(calls, bc)
	}
	slices.SortFunc(calls, func(a, b BlockedCall) int {
		return cmp.Or(cmp.Compare(a.Rank, b.Rank), cmp.Compare(a.Thread, b.Thread), cmp.Compare(a.Site, b.Site))
	})
	d.Blocked = calls
	return d
}

// rankList prints ranks compactly: 0-3,5,7-9.
func rankList(ranks []int) string {
	var parts []string
	for i := 0; i < len(ranks); {
		j := i
		for j+1 < len(ranks) && ranks[j+1] == ranks[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d-%d", ranks[i], ranks[j]))
		} else {
			parts = append(parts, fmt.Sprint(ranks[i]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

// This file defines the patterns of threads inside a rank: lock contention
// and waits at thread barriers.

package patterns

import (
	"cmp"
	"slices"

	"github.com/predict-tools/predict/trace"
)

var (
	acquireOps = set("Mutex.Lock", "Semaphore.Acquire")
	releaseOps = set("Mutex.Unlock", "Semaphore.Release")
)

// lockContention finds waits for a lock or semaphore (seed-000 §3.2): an
// acquire that another thread's release ends. The wait runs from the
// acquire's enter to the last release of the object by another thread that
// starts during the acquire (the release it waited for), clipped to the
// acquire; an acquire that no release interrupts did not wait.
func (x *index) lockContention(c *collector) {
	acquires := make(map[objectKey][]*trace.Event)
	releases := make(map[objectKey][]*trace.Event)
	for _, k := range sortedKeys(x.threads, compareThreadKeys) {
		for _, e := range x.threads[k] {
			switch {
			case e.Kind != trace.KindOp:
			case acquireOps[e.Op]:
				acquires[objectKey{e.Rank, e.Object}] = append(acquires[objectKey{e.Rank, e.Object}], e)
			case releaseOps[e.Op]:
				releases[objectKey{e.Rank, e.Object}] = append(releases[objectKey{e.Rank, e.Object}], e)
			}
		}
	}
	for _, k := range sortedKeys(acquires, compareObjectKeys) {
		rel := releases[k]
		slices.SortFunc(rel, func(a, b *trace.Event) int { return cmp.Or(cmp.Compare(a.Enter, b.Enter), compareEvents(a, b)) })
		for _, a := range acquires[k] {
			// The last release entered in (a.Enter, a.Exit] by another thread.
			i, _ := slices.BinarySearchFunc(rel, a.Exit+1, func(r *trace.Event, t trace.Time) int { return cmp.Compare(r.Enter, t) })
			var by *trace.Event
			for j := i - 1; j >= 0 && rel[j].Enter > a.Enter; j-- {
				if rel[j].Thread != a.Thread {
					by = rel[j]
					break
				}
			}
			if by == nil {
				continue
			}
			c.add(instance{pattern: "LockContention", vocabulary: Scalasca, at: a, lost: min(by.Exit, a.Exit) - a.Enter,
				culprit: by})
		}
	}
}

func compareObjectKeys(a, b objectKey) int {
	return cmp.Or(cmp.Compare(a.rank, b.rank), cmp.Compare(a.object, b.object))
}

// threadBarriers finds waits at thread barriers (Barrier.Wait): the k-th
// calls of the threads on one barrier object form its round k, and each
// waits until the last of them enters (Scalasca's Wait at Explicit OpenMP
// Barrier).
func (x *index) threadBarriers(c *collector) {
	rounds := make(map[objectKey][][]*trace.Event)
	for _, k := range sortedKeys(x.threads, compareThreadKeys) {
		count := make(map[int64]int)
		for _, e := range x.threads[k] {
			if e.Kind != trace.KindOp || e.Op != "Barrier.Wait" {
				continue
			}
			ok := objectKey{e.Rank, e.Object}
			n := count[e.Object]
			count[e.Object]++
			if n == len(rounds[ok]) {
				rounds[ok] = append(rounds[ok], nil)
			}
			rounds[ok][n] = append(rounds[ok][n], e)
		}
	}
	for _, k := range sortedKeys(rounds, compareObjectKeys) {
		for _, round := range rounds[k] {
			var last *trace.Event
			for _, e := range round {
				if last == nil || e.Enter > last.Enter {
					last = e
				}
			}
			for _, e := range round {
				c.add(instance{pattern: "WaitAtThreadBarrier", vocabulary: Scalasca, at: e,
					lost: min(last.Enter, e.Exit) - e.Enter, culprit: last})
			}
		}
	}
}

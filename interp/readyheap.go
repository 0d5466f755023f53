// This file defines the scheduler's ready heap: the runnable processes
// by clock, then rank.

package interp

import "fmt"

// procHeap orders runnable processes by clock, then rank: a binary heap,
// container/heap's algorithm without its interface calls (the scheduler
// pushes and pops once per communication event). A process's clock does
// not change while an entry of it is in the heap (it runs only once
// popped, and only a blocked process is resumed), so each entry holds its
// key: comparisons read no process. The one exception, a rank whose wait
// for a steal ends early (nodecores.go), is pushed again with a new
// generation (repush): its old entry stays behind and pop drops it.
type procHeap []readyProc

type readyProc struct {
	clock int64
	rank  int
	p     *proc
	gen   uint32
}

func (h procHeap) less(i, j int) bool {
	a, b := &h[i], &h[j]
	if a.clock != b.clock {
		return a.clock < b.clock
	}
	return a.rank < b.rank
}

func (h *procHeap) init(procs []*proc) {
	*h = make(procHeap, len(procs))
	for i, p := range procs {
		(*h)[i] = readyProc{p.cur.clock, p.rank, p, 0}
		if n := p.cores; n != nil {
			n.ready++ // ready, without a core (nodecores.go)
			p.counted = true
		}
	}
	n := len(*h)
	for i := n/2 - 1; i >= 0; i-- {
		h.down(i, n)
	}
}

func (h *procHeap) push(p *proc) {
	if n := p.cores; n != nil && p.core < 0 && !p.counted {
		n.ready++ // ready, without a core (nodecores.go)
		p.counted = true
	}
	*h = append(*h, readyProc{p.cur.clock, p.rank, p, p.gen})
	h.up(len(*h) - 1)
}

// repush moves p, in the heap, to its clock now earlier than its entry's
// (a rank whose steal wait ends early, nodecores.go): the old entry is
// left behind, superseded.
func (h *procHeap) repush(p *proc) {
	p.gen++
	h.push(p)
}

// pop removes the earliest process, nil when none is left (entries that
// repush superseded are dropped on the way).
func (h *procHeap) pop() *proc {
	for len(*h) > 0 {
		old := *h
		n := len(old) - 1
		old[0], old[n] = old[n], old[0]
		h.down(0, n)
		e := old[n]
		old[n] = readyProc{}
		*h = old[:n]
		if e.gen != e.p.gen {
			continue
		}
		if e.clock != e.p.cur.clock {
			panic(fmt.Sprintf("interp: rank %d's clock moved from %d to %d while it was ready", e.rank, e.clock, e.p.cur.clock))
		}
		e.p.uncount()
		return e.p
	}
	return nil
}

func (h procHeap) up(j int) {
	for {
		i := (j - 1) / 2 // parent
		if i == j || !h.less(j, i) {
			break
		}
		h[i], h[j] = h[j], h[i]
		j = i
	}
}

func (h procHeap) down(i0, n int) {
	i := i0
	for {
		j1 := 2*i + 1
		if j1 >= n || j1 < 0 { // j1 < 0 after int overflow
			break
		}
		j := j1 // left child
		if j2 := j1 + 1; j2 < n && h.less(j2, j1) {
			j = j2 // right child
		}
		if !h.less(j, i) {
			break
		}
		h[i], h[j] = h[j], h[i]
		i = j
	}
}

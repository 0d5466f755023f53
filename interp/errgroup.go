// This file defines golang.org/x/sync/errgroup's Group (issue 19 item 1):
// errgroup is a WaitGroup, a semaphore channel and a sync.Once around
// the first error, and the model runs it as those.
//
// Go(f) sends a token on the group's semaphore when SetLimit gave it one
// (waiting, as that send does, for a goroutine of the group to end when
// the limit is reached), adds one to the WaitGroup (CAS) and starts f as
// a goroutine (Create, and Start later). When f returns, a non-nil
// error is kept if it is the group's first (errOnce.Do: CAS), the token
// is taken back (a receive: CAS) and the WaitGroup is Done (CAS). Wait is
// WaitGroup.Wait, and returns the first error. TryGo is Go that returns
// false instead of waiting for a token. WithContext returns a new group
// and its parent context: the model does not cancel contexts (what a
// goroutine decides on ctx.Err() or ctx.Done() is an opaque decision,
// replayed from the timing pass), and the run says so.

package interp

import (
	"go/types"
	"strings"

	"golang.org/x/tools/go/ssa"
)

// groupV is an errgroup.Group's state.
type groupV struct {
	wg  *wgV
	sem *chanV // nil: no limit
	err V      // the first non-nil error a goroutine returned
}

// rootContext is context.Background's (and TODO's) context: an opaque,
// non-nil value the model passes on.
type rootContext struct{}

// rootContextMethod is the result of a context.Context method on a
// rootContext: never cancelled (Err nil, Done a nil channel, which no
// receive or select case ever takes), no values; false for a method the
// model does not follow (Deadline).
func rootContextMethod(name string) (V, bool) {
	switch name {
	case "Err", "Done", "Value":
		return V{}, true
	}
	return V{}, false
}

// isErrgroupOp reports whether a followed operation (modelgen.GoSyncOp's
// name) is errgroup's.
func isErrgroupOp(name string) bool { return strings.HasPrefix(name, "errgroup.") }

// errgroupOp compiles a call of errgroup's followed function or method
// f, named name.
func (c *compiler) errgroupOp(name string, f *ssa.Function, args []operand, dst int, site string) op {
	sid := c.siteID(site) // the burst of compute after the operation starts here (noise.go)
	cas := int64(c.cp.mach.Threads.CAS)
	group := func(p *proc, fr *frame) *groupV {
		return syncOf(p, args[0].get(fr), func() *groupV { return &groupV{wg: &wgV{id: p.w.newID()}} })
	}
	nilRecv := func(p *proc) ctl {
		return p.fail(site, name+" on a nil *errgroup.Group (invalid memory address or nil pointer dereference)")
	}
	switch name {
	case "errgroup.WithContext":
		elem := f.Signature.Results().At(0).Type().(*types.Pointer).Elem()
		return func(p *proc, fr *frame) ctl {
			p.w.noteAssumption(site, "errgroup.WithContext: the model does not cancel its context when a goroutine fails; what the goroutines decide on it is replayed from the timing pass")
			return set(fr, dst, V{R: tuple{newMemory(elem, false), args[0].get(fr)}})
		}
	case "errgroup.Group.Go", "errgroup.Group.TryGo":
		try := name == "errgroup.Group.TryGo"
		return func(p *proc, fr *frame) ctl {
			g := group(p, fr)
			if g == nil {
				return nilRecv(p)
			}
			cl := progFunc(args[1].get(fr))
			if cl == nil {
				return p.fail(site, name+": the function is nil or not the program's")
			}
			if g.sem != nil {
				if try {
					if c, wait := p.turn(); wait {
						return c
					}
					if !g.sem.sendReady() {
						if !p.spend(cas, site, name) {
							return cStop
						}
						return set(fr, dst, boolV(false))
					}
				}
				// A resumed send (it waited for a token) returns cNext
				// here and the op goes on.
				if c := p.chanSend(g.sem, V{}, site); c != cNext {
					return c
				}
			}
			if !p.spend(cas, site, name) { // wg.Add(1)
				return cStop
			}
			g.wg.count++
			if c := p.spawn(cl.fn, cl.env, nil, g.wg, g, site); c != cNext {
				return c
			}
			if try {
				return set(fr, dst, boolV(true))
			}
			return cNext
		}
	case "errgroup.Group.Wait":
		return func(p *proc, fr *frame) ctl {
			if p.mustYield(sid) {
				return cYield // the ranks behind it first, as at WaitForAll
			}
			g := group(p, fr)
			if g == nil {
				return nilRecv(p)
			}
			if c := p.wgWait(g.wg, site, name); c != cNext {
				return c
			}
			return set(fr, dst, g.err)
		}
	case "errgroup.Group.SetLimit":
		return func(p *proc, fr *frame) ctl {
			g := group(p, fr)
			if g == nil {
				return nilRecv(p)
			}
			n := args[1].get(fr).I
			if n < 0 {
				g.sem = nil
				return cNext
			}
			if g.sem != nil && g.sem.ready() {
				// errgroup panics only when its semaphore holds tokens.
				return p.fail(site, "errgroup: modify limit while goroutines in the group are still active")
			}
			g.sem = &chanV{id: p.w.newID(), cap: int(n)}
			return cNext
		}
	}
	// modelgen.GoSyncOp names no other.
	return func(p *proc, fr *frame) ctl { return p.fail(site, name+" is not modeled") }
}

// groupEnd is the end of a goroutine of group g, whose function returned
// res: the first non-nil error is kept (errOnce.Do), and its token taken
// back. The caller then marks the WaitGroup Done.
func (p *proc) groupEnd(g *groupV, res V) {
	if res.R != nil && g.err.R == nil {
		p.cur.clock = addTime(p.cur.clock, int64(p.w.mach.Threads.CAS))
		g.err = res
	}
	if g.sem != nil && g.sem.ready() { // a token (the semaphore is never closed)
		p.chanTake(g.sem)
	}
}

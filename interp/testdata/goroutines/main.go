// Command goroutines is the interpreter's hand-computed goroutine test
// (issue 19): spin(u) costs u units of a synthetic profile, so the clocks
// of goroutines, WaitGroup joins, sync.Mutex, sync.RWMutex and sync.Once
// (and golang.org/x/sync/errgroup) can be computed by hand.
package main

import (
	"context"
	"flag"
	"fmt"
	"sync"
	"sync/atomic"

	"golang.org/x/sync/errgroup"

	"github.com/predict-tools/predict/commlib"
)

var part = flag.String("part", "join", "join, mutex, causal, rwmutex, wggo, nested, once, unjoined, fanout, worksharing, pipeline, buffered, rangeclose, select, single, iface, errgroup, errindirect, errlimit, trygo, mainlock, beside, interleave, chandeadlock, negative, forever or deadlock")

var sink int

// spin is the unit of work: the profile times its loop.
func spin(units int) {
	for i := 0; i < units; i++ {
		sink += i
	}
}

// runner is what the iface part starts goroutines and defers calls on.
type runner interface {
	Run(wg *sync.WaitGroup)
	Close()
}

type spinner struct{ u int }

func (s spinner) Run(wg *sync.WaitGroup) { defer wg.Done(); spin(s.u) }
func (s spinner) Close()                 { spin(s.u) }

// launch starts f in g: the function reaches errgroup's Go as a value.
func launch(g *errgroup.Group, f func() error) { g.Go(f) }

// deferred spins a unit, then r.Close runs at its return.
func deferred(r runner) {
	defer r.Close()
	spin(1)
}

type counter struct {
	mu    sync.Mutex
	total int
}

func (c *counter) add(u int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	spin(u)
	c.total += u
}

func main() {
	commlib.Main(func(c *commlib.Comm) {
		switch *part {
		case "join":
			// Fork/join: the main goroutine at 100 starts goroutines of
			// 10, 20 and 15 and waits for them.
			spin(100)
			var wg sync.WaitGroup
			for _, u := range []int{10, 20, 15} {
				wg.Add(1)
				go func() {
					defer wg.Done()
					spin(u)
				}()
			}
			wg.Wait()
		case "mutex":
			// The first goroutine locks at 5 and unlocks at 15; the
			// second asks at 6 and waits.
			var mu sync.Mutex
			var wg sync.WaitGroup
			wg.Add(2)
			go func() { spin(5); mu.Lock(); spin(10); mu.Unlock(); wg.Done() }()
			go func() { spin(6); mu.Lock(); spin(1); mu.Unlock(); wg.Done() }()
			wg.Wait()
		case "causal":
			// The goroutine started first asks later (at 8) than the
			// second (at 3): the second gets the lock first.
			cnt := &counter{}
			var wg sync.WaitGroup
			wg.Add(2)
			go func() { defer wg.Done(); spin(8); cnt.add(2) }()
			go func() { defer wg.Done(); spin(3); cnt.add(10) }()
			wg.Wait()
		case "rwmutex":
			// Two readers hold the lock together from 1 to 11 and 2 to
			// 7; a writer asks at 3 and waits for both.
			var rw sync.RWMutex
			var wg sync.WaitGroup
			for _, u := range []int{1, 2} {
				wg.Add(1)
				go func() { defer wg.Done(); spin(u); rw.RLock(); spin(10 - 5*(u-1)); rw.RUnlock() }()
			}
			wg.Add(1)
			go func() { defer wg.Done(); spin(3); rw.Lock(); spin(4); rw.Unlock() }()
			wg.Wait()
		case "wggo":
			// WaitGroup.Go: two goroutines of 7 and 9.
			var wg sync.WaitGroup
			wg.Go(func() { spin(7) })
			wg.Go(func() { spin(9) })
			wg.Wait()
		case "nested":
			// A goroutine starts two of its own and waits for them.
			var wg sync.WaitGroup
			wg.Add(1)
			go func() {
				defer wg.Done()
				var inner sync.WaitGroup
				for _, u := range []int{4, 6} {
					inner.Add(1)
					go func() { defer inner.Done(); spin(u) }()
				}
				inner.Wait()
				spin(1)
			}()
			wg.Wait()
		case "once":
			// Three goroutines call once.Do; its function runs once.
			var once sync.Once
			var wg sync.WaitGroup
			for range 3 {
				wg.Add(1)
				go func() { defer wg.Done(); once.Do(func() { spin(5) }); spin(1) }()
			}
			wg.Wait()
		case "unjoined":
			// A goroutine nobody waits for: the rank ends at 2.
			go func() { spin(50) }()
			spin(2)
		case "fanout":
			// Eight goroutines of 10 units each, waited for, then all
			// ranks meet.
			var wg sync.WaitGroup
			for range 8 {
				wg.Add(1)
				go func() { defer wg.Done(); spin(10) }()
			}
			wg.Wait()
			c.Barrier()
		case "worksharing":
			// Three goroutines take six tasks of 10 units from a shared
			// atomic counter, in modeled-time order.
			var next atomic.Int64
			var wg sync.WaitGroup
			for range 3 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for {
						i := next.Add(1) - 1
						if i >= 6 {
							return
						}
						spin(10)
					}
				}()
			}
			wg.Wait()
		case "pipeline":
			// A goroutine sends three values, 10 units apart, on an
			// unbuffered channel; the main goroutine takes each and
			// computes 5 units.
			ch := make(chan int)
			go func() {
				for i := range 3 {
					spin(10)
					ch <- i
				}
			}()
			for range 3 {
				<-ch
				spin(5)
			}
		case "buffered":
			// Four values, a unit apart, through a buffer of two, which
			// the main goroutine starts taking at 10 units.
			ch := make(chan int, 2)
			go func() {
				for i := range 4 {
					spin(1)
					ch <- i
				}
			}()
			spin(10)
			for range 4 {
				<-ch
				spin(1)
			}
		case "rangeclose":
			// Values 1, 2, 3, two units apart, then close; the main
			// goroutine ranges over the channel and computes 2 units each
			// (not v units: a value received from a channel is data the
			// model does not compute).
			ch := make(chan int)
			go func() {
				for i := 1; i <= 3; i++ {
					spin(2)
					ch <- i
				}
				close(ch)
			}()
			for range ch {
				spin(2)
			}
		case "select":
			// The goroutine started second sends first (3 units against
			// 5): the select takes its value first.
			a, b := make(chan int), make(chan int)
			go func() { spin(5); a <- 1 }()
			go func() { spin(3); b <- 2 }()
			for range 2 {
				select {
				case <-a:
					spin(1)
				case <-b:
					spin(2)
				}
			}
		case "single":
			// One goroutine of 10 units, waited for.
			var wg sync.WaitGroup
			wg.Go(func() { spin(10) })
			wg.Wait()
		case "iface":
			// A goroutine started through an interface method, and a
			// call deferred through one.
			var wg sync.WaitGroup
			var r runner = spinner{4}
			wg.Add(1)
			go r.Run(&wg)
			wg.Wait()
			deferred(spinner{2})
		case "errgroup":
			// errgroup: goroutines of 10, 20 and 15; the 20 one fails,
			// and Wait's error decides 5 more.
			var g errgroup.Group
			for _, u := range []int{10, 20, 15} {
				g.Go(func() error {
					spin(u)
					if u == 20 {
						return fmt.Errorf("task of %d failed", u)
					}
					return nil
				})
			}
			if err := g.Wait(); err != nil {
				spin(5)
			}
		case "errindirect":
			// errgroup through a helper: the functions reach Go as a
			// parameter's value. The same goroutines and error as
			// errgroup's.
			var g errgroup.Group
			for _, u := range []int{10, 20, 15} {
				launch(&g, func() error {
					spin(u)
					if u == 20 {
						return fmt.Errorf("task of %d failed", u)
					}
					return nil
				})
			}
			if err := g.Wait(); err != nil {
				spin(5)
			}
		case "errlimit":
			// At most two at once: the third and fourth Go wait for a
			// token.
			g, ctx := errgroup.WithContext(context.Background())
			g.SetLimit(2)
			for _, u := range []int{10, 20, 5, 5} {
				g.Go(func() error {
					if ctx.Err() != nil {
						return ctx.Err()
					}
					spin(u)
					return nil
				})
			}
			if g.Wait() != nil {
				spin(100)
			}
		case "trygo":
			// One at a time: the second TryGo fails, and the main
			// goroutine does its 3 itself.
			var g errgroup.Group
			g.SetLimit(1)
			g.TryGo(func() error { spin(10); return nil })
			if !g.TryGo(func() error { spin(3); return nil }) {
				spin(3)
			}
			_ = g.Wait()
		case "mainlock":
			// The goroutine asks for the lock at 5, before the main
			// goroutine does (at 8): it gets it first and holds it 10.
			var mu sync.Mutex
			var wg sync.WaitGroup
			wg.Add(1)
			go func() {
				defer wg.Done()
				spin(5)
				mu.Lock()
				spin(10)
				mu.Unlock()
			}()
			spin(8)
			mu.Lock()
			spin(1)
			mu.Unlock()
			wg.Wait()
		case "beside":
			// Two goroutines of 10 and the main goroutine's own 10, on
			// two cores.
			var wg sync.WaitGroup
			for range 2 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					spin(10)
				}()
			}
			spin(10)
			wg.Wait()
		case "interleave":
			// One goroutine computes four pieces of 5, two others one
			// piece of 10 each, on two cores.
			var wg sync.WaitGroup
			wg.Add(3)
			go func() {
				defer wg.Done()
				for range 4 {
					spin(5)
				}
			}()
			for range 2 {
				go func() {
					defer wg.Done()
					spin(10)
				}()
			}
			wg.Wait()
		case "chandeadlock":
			// A receive no goroutine sends to: all goroutines asleep.
			ch := make(chan int)
			go func() { spin(1) }()
			<-ch
		case "negative":
			// More Done than Add: Go panics.
			var wg sync.WaitGroup
			wg.Done()
		case "forever":
			// An Add without its Done: Wait would never return.
			var wg sync.WaitGroup
			wg.Add(2)
			go func() { wg.Done() }()
			wg.Wait()
		case "deadlock":
			// Two goroutines take a lock nobody releases.
			var mu sync.Mutex
			var wg sync.WaitGroup
			wg.Add(2)
			go func() { mu.Lock(); wg.Done() }()
			go func() { mu.Lock(); wg.Done() }()
			wg.Wait()
		}
	})
}

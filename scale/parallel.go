// This file defines the predictions of a sweep: one per process count, run
// in parallel across process counts.

package scale

import (
	"cmp"
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
)

// A PredictFunc predicts one run at np processes. It should return early,
// with ctx's error, once ctx is done: a sweep cancels the predictions it no
// longer needs.
type PredictFunc func(ctx context.Context, np int) (Point, error)

// predictAll predicts one run per process count of nps with predict, on workers
// goroutines at a time (GOMAXPROCS when workers ≤ 0), and returns the
// points of the predictions that succeeded and the failures of those that
// did not, each sorted by process count. One prediction is never split
// across goroutines: the interpreter of one run is sequential (DESIGN.md
// §7).
//
// Process counts are started largest first. The cost of a prediction grows
// with np, so the longest ones start early and the short ones fill the gaps
// (longest-processing-time-first scheduling); a doubling sweep finishes
// about when its largest np does.
//
// A prediction that fails (the program aborts at that np, a limit of the
// model, not enough memory) does not stop the others: it is a Failure,
// and the caller decides what a sweep with failures is worth. The error
// is for process counts that cannot be predicted at all (below 1, given
// twice) and for ctx: when ctx is done before the sweep is, predictAll cancels
// the predictions under way, waits for them to return and returns ctx's
// error.
//
// progress, when not nil, is told of the start, of every finished
// prediction and of the end; its calls never overlap.
func predictAll(ctx context.Context, nps []int, workers int, predict PredictFunc, progress Progress) ([]Point, []Failure, error) {
	order := slices.Clone(nps)
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(b, a) })
	for i, np := range order {
		if np < 1 {
			return nil, nil, fmt.Errorf("np=%d: process count less than 1", np)
		}
		if i > 0 && order[i-1] == np {
			return nil, nil, fmt.Errorf("np=%d: process count given twice", np)
		}
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, len(order))
	if progress == nil {
		progress = silent{}
	}

	s := &sweep{
		order:   order,
		predict: predict,
		ctx:     ctx,
		points:  make([]Point, len(order)),
		errs:    make([]error, len(order)),
		done:    make([]bool, len(order)),
		report:  progress,
	}
	progress.Start(slices.Clone(order))
	defer progress.Stop()
	var wg sync.WaitGroup
	for range workers {
		wg.Go(s.work)
	}
	wg.Wait()

	if err := ctx.Err(); err != nil && slices.Contains(s.done, false) {
		return nil, nil, err
	}
	var (
		points   []Point
		failures []Failure
	)
	for i := len(order) - 1; i >= 0; i-- {
		if s.errs[i] != nil {
			failures = append(failures, Failure{NP: order[i], Error: s.errs[i].Error()})
		} else {
			points = append(points, s.points[i])
		}
	}
	return points, failures, nil
}

// A sweep is the state its workers share.
type sweep struct {
	order   []int // process counts, in the order they are started
	predict PredictFunc
	ctx     context.Context

	mu     sync.Mutex
	next   int      // index in order of the next np to start
	points []Point  // by index
	errs   []error  // by index
	done   []bool   // by index: returned, whether or not it failed
	report Progress // called with mu held, so calls never overlap
}

// work runs predictions until there is none left to start.
func (s *sweep) work() {
	for {
		s.mu.Lock()
		if s.next >= len(s.order) || s.ctx.Err() != nil {
			s.mu.Unlock()
			return
		}
		i := s.next
		s.next++
		s.mu.Unlock()

		np := s.order[i]
		p, err := s.predict(s.ctx, np)
		if err == nil && p.NP != np {
			if p.NP != 0 {
				err = fmt.Errorf("the prediction is for np=%d", p.NP)
			}
			p.NP = np
		}

		s.mu.Lock()
		if s.ctx.Err() == nil {
			// Once ctx is done the sweep's result is ctx's error: a
			// prediction that returned because of it is not done.
			s.points[i], s.errs[i], s.done[i] = p, err, true
		}
		s.report.Done(np, err)
		s.mu.Unlock()
	}
}

// This file defines the sweep: one prediction per process count, run in
// parallel across process counts.

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
// with ctx's error, once ctx is done: Sweep cancels the predictions it no
// longer needs.
type PredictFunc func(ctx context.Context, np int) (Point, error)

// Sweep predicts one run per process count of nps with predict, on workers
// goroutines at a time (GOMAXPROCS when workers ≤ 0), and returns the
// points sorted by process count. One prediction is never split across
// goroutines: the interpreter of one run is sequential (DESIGN.md §7).
//
// Process counts are started largest first. The cost of a prediction grows
// with np, so the longest ones start early and the short ones fill the gaps
// (longest-processing-time-first scheduling); a doubling sweep finishes
// about when its largest np does.
//
// When predictions fail, the error returned is that of the first failing
// process count in that order (the largest np that fails), wrapped with
// "np=N: ": predictions that come later are cancelled and no more are
// started, those that come earlier are finished. So the error does not
// depend on timing. When ctx is done before the sweep is, Sweep cancels
// the predictions under way, waits for them to return and returns ctx's
// error.
//
// progress, when not nil, is told of the start, of every finished
// prediction and of the end; its calls never overlap.
func Sweep(ctx context.Context, nps []int, workers int, predict PredictFunc, progress Progress) ([]Point, error) {
	order := slices.Clone(nps)
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(b, a) })
	for i, np := range order {
		if np < 1 {
			return nil, fmt.Errorf("np=%d: process count less than 1", np)
		}
		if i > 0 && order[i-1] == np {
			return nil, fmt.Errorf("np=%d: process count given twice", np)
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
		cancels: make(map[int]context.CancelFunc),
		failed:  len(order),
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
		return nil, err
	}
	if s.failed < len(order) {
		return nil, fmt.Errorf("np=%d: %w", order[s.failed], s.errs[s.failed])
	}
	slices.Reverse(s.points)
	return s.points, nil
}

// A sweep is the state its workers share.
type sweep struct {
	order   []int // process counts, in the order they are started
	predict PredictFunc
	ctx     context.Context

	mu      sync.Mutex
	next    int                        // index in order of the next np to start
	failed  int                        // smallest index in order whose prediction failed, len(order) if none
	cancels map[int]context.CancelFunc // of the predictions under way, by index
	points  []Point                    // by index
	errs    []error                    // by index
	done    []bool                     // by index
	report  Progress                   // called with mu held, so calls never overlap
}

// work runs predictions until there is none left to start.
func (s *sweep) work() {
	for {
		s.mu.Lock()
		if s.next >= len(s.order) || s.next > s.failed || s.ctx.Err() != nil {
			s.mu.Unlock()
			return
		}
		i := s.next
		s.next++
		ctx, cancel := context.WithCancel(s.ctx)
		s.cancels[i] = cancel
		s.mu.Unlock()

		np := s.order[i]
		p, err := s.predict(ctx, np)
		if err == nil && p.NP != np {
			if p.NP != 0 {
				err = fmt.Errorf("the prediction is for np=%d", p.NP)
			}
			p.NP = np
		}
		if err == nil && ctx.Err() != nil {
			// Cancelled but returned a point anyway: the point may be
			// incomplete, and the sweep has stopped needing it.
			err = ctx.Err()
		}

		s.mu.Lock()
		delete(s.cancels, i)
		cancel()
		s.points[i], s.errs[i], s.done[i] = p, err, err == nil
		if err != nil && i < s.failed {
			// A prediction before the first failure is cancelled only
			// when ctx is, and then Sweep returns ctx's error.
			s.failed = i
			for j, cancel := range s.cancels {
				if j > i {
					cancel()
				}
			}
		}
		s.report.Done(np, err)
		s.mu.Unlock()
	}
}

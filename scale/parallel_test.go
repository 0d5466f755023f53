// This file tests the parallel predictions of a sweep (parallel.go).

package scale

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/predict-tools/predict/trace"
)

// fakePoint is the point a test predictor returns at np.
func fakePoint(np int) Point {
	return Point{NP: np, Time: trace.Time(1e9 / np), Compute: trace.Time(1e9 / np)}
}

func TestPredictAllOrder(t *testing.T) {
	nps := []int{4, 1, 64, 2, 16, 8, 32}
	var (
		mu      sync.Mutex
		started []int
	)
	predict := func(ctx context.Context, np int) (Point, error) {
		mu.Lock()
		started = append(started, np)
		mu.Unlock()
		p := fakePoint(np)
		p.NP = 0 // predictAll fills it in
		return p, nil
	}
	points, failed, err := predictAll(context.Background(), nps, 1, predict, nil)
	if err != nil || failed != nil {
		t.Fatal(err, failed)
	}
	if want := []int{64, 32, 16, 8, 4, 2, 1}; !slices.Equal(started, want) {
		t.Errorf("started %v, want largest first %v", started, want)
	}
	for i, np := range []int{1, 2, 4, 8, 16, 32, 64} {
		if !equalPoint(points[i], fakePoint(np)) {
			t.Errorf("point %d = %+v, want %+v", i, points[i], fakePoint(np))
		}
	}
	if !slices.Equal(nps, []int{4, 1, 64, 2, 16, 8, 32}) {
		t.Errorf("predictAll changed its argument: %v", nps)
	}
}

func equalPoint(a, b Point) bool {
	return a.NP == b.NP && a.Time == b.Time && a.Compute == b.Compute && a.Comm == b.Comm && a.Wait == b.Wait
}

// TestSweepParallel checks that predictAll keeps exactly `workers` predictions
// under way: each prediction waits until that many have started.
func TestPredictAllParallel(t *testing.T) {
	const workers = 3
	nps := []int{1, 2, 3, 4, 5, 6, 7, 8, 9}
	var (
		running, most atomic.Int32
		mu            sync.Mutex
		arrived       = 0
		gate          = make(chan struct{})
	)
	predict := func(ctx context.Context, np int) (Point, error) {
		n := running.Add(1)
		defer running.Add(-1)
		for {
			m := most.Load()
			if n <= m || most.CompareAndSwap(m, n) {
				break
			}
		}
		mu.Lock()
		if arrived++; arrived == workers {
			close(gate) // the first `workers` predictions were under way together
		}
		mu.Unlock()
		select {
		case <-gate:
		case <-time.After(10 * time.Second):
			return Point{}, errors.New("predictions did not run in parallel")
		}
		return fakePoint(np), nil
	}
	points, _, err := predictAll(context.Background(), nps, workers, predict, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := most.Load(); got != workers {
		t.Errorf("%d predictions at once, want %d", got, workers)
	}
	for i, p := range points {
		if p.NP != i+1 {
			t.Fatalf("points out of order: %v", points)
		}
	}
}

func TestPredictAllDefaultWorkers(t *testing.T) {
	points, _, err := predictAll(context.Background(), []int{2, 1}, 0, func(_ context.Context, np int) (Point, error) {
		return fakePoint(np), nil
	}, nil)
	if err != nil || len(points) != 2 || points[0].NP != 1 || points[1].NP != 2 {
		t.Fatalf("predictAll = %v, %v", points, err)
	}
	points, _, err = predictAll(context.Background(), nil, 0, nil, nil)
	if err != nil || len(points) != 0 {
		t.Fatalf("empty predictAll = %v, %v", points, err)
	}
}

// TestSweepFailures checks that a failing prediction is reported with its
// np and does not stop the others, whatever the timing.
func TestPredictAllFailures(t *testing.T) {
	errTooBig := errors.New("too many processes")
	for range 20 {
		var calls atomic.Int32
		predict := func(ctx context.Context, np int) (Point, error) {
			calls.Add(1)
			if np >= 64 && np != 1024 {
				// Smaller failing nps fail sooner, to tempt a race.
				time.Sleep(time.Duration(np/64) * 100 * time.Microsecond)
				return Point{}, fmt.Errorf("%w: %d", errTooBig, np)
			}
			return fakePoint(np), nil
		}
		points, failed, err := predictAll(context.Background(), []int{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024}, 4, predict, nil)
		if err != nil {
			t.Fatal(err)
		}
		want := []Failure{{64, "too many processes: 64"}, {128, "too many processes: 128"}, {256, "too many processes: 256"}, {512, "too many processes: 512"}}
		if !slices.Equal(failed, want) {
			t.Fatalf("failures %v, want %v", failed, want)
		}
		var nps []int
		for _, p := range points {
			nps = append(nps, p.NP)
		}
		if !slices.Equal(nps, []int{1, 2, 4, 8, 16, 32, 1024}) || calls.Load() != 11 {
			t.Fatalf("points at %v after %d predictions, want 1..32 and 1024 after 11", nps, calls.Load())
		}
	}
}

func TestPredictAllContextCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var calls atomic.Int32
	predict := func(ctx context.Context, np int) (Point, error) {
		if calls.Add(1) == 2 {
			cancel()
		}
		<-ctx.Done()
		return Point{}, ctx.Err()
	}
	_, _, err := predictAll(ctx, []int{1, 2, 4, 8, 16, 32}, 2, predict, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("predictAll error = %v, want context.Canceled", err)
	}
	if n := calls.Load(); n != 2 {
		t.Errorf("%d predictions started, want 2", n)
	}

	// A predictor that ignores ctx: its late point is not used.
	ctx, cancel = context.WithCancel(context.Background())
	predict = func(_ context.Context, np int) (Point, error) {
		cancel()
		return fakePoint(np), nil
	}
	if _, _, err := predictAll(ctx, []int{1, 2}, 1, predict, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("predictAll error = %v, want context.Canceled", err)
	}

	// Already cancelled: nothing starts.
	calls.Store(0)
	if _, _, err := predictAll(ctx, []int{1, 2}, 1, func(_ context.Context, np int) (Point, error) {
		calls.Add(1)
		return fakePoint(np), nil
	}, nil); !errors.Is(err, context.Canceled) || calls.Load() != 0 {
		t.Fatalf("predictAll error = %v after %d predictions, want context.Canceled after none", err, calls.Load())
	}
}

func TestPredictAllBadInput(t *testing.T) {
	ok := func(_ context.Context, np int) (Point, error) { return fakePoint(np), nil }
	for _, test := range []struct {
		nps     []int
		predict PredictFunc
		want    string
	}{
		{[]int{1, 0}, ok, "np=0: process count less than 1"},
		{[]int{2, 4, 2}, ok, "np=2: process count given twice"},
	} {
		_, _, err := predictAll(context.Background(), test.nps, 2, test.predict, nil)
		if err == nil || err.Error() != test.want {
			t.Errorf("predictAll(%v) error = %v, want %s", test.nps, err, test.want)
		}
	}
	// A predictor that answers for another np fails at that np.
	_, failed, err := predictAll(context.Background(), []int{1, 2}, 2, func(_ context.Context, np int) (Point, error) {
		return fakePoint(2 * np), nil
	}, nil)
	if want := []Failure{{1, "the prediction is for np=2"}, {2, "the prediction is for np=4"}}; err != nil || !slices.Equal(failed, want) {
		t.Errorf("predictAll = %v, %v, want failures %v", failed, err, want)
	}
}

// recorder is a Progress that checks how predictAll calls it.
type recorder struct {
	t       *testing.T
	inside  atomic.Int32
	started []int
	done    []string
	stopped int
}

func (r *recorder) enter() {
	if r.inside.Add(1) != 1 {
		r.t.Error("overlapping Progress calls")
	}
	time.Sleep(100 * time.Microsecond) // widen the window for overlaps
}
func (r *recorder) leave() { r.inside.Add(-1) }

func (r *recorder) Start(nps []int) { r.enter(); defer r.leave(); r.started = nps }
func (r *recorder) Done(np int, err error) {
	r.enter()
	defer r.leave()
	r.done = append(r.done, fmt.Sprint(np, err))
}
func (r *recorder) Stop() { r.enter(); defer r.leave(); r.stopped++ }

func TestPredictAllProgress(t *testing.T) {
	r := &recorder{t: t}
	nps := []int{1, 2, 3, 4, 5, 6, 7, 8}
	_, failed, err := predictAll(context.Background(), nps, 4, func(_ context.Context, np int) (Point, error) {
		if np == 3 {
			return Point{}, errors.New("boom")
		}
		return fakePoint(np), nil
	}, r)
	if err != nil || !slices.Equal(failed, []Failure{{3, "boom"}}) {
		t.Fatalf("predictAll = %v, %v", failed, err)
	}
	if !slices.Equal(r.started, []int{8, 7, 6, 5, 4, 3, 2, 1}) || r.stopped != 1 {
		t.Errorf("Start(%v), Stop ×%d", r.started, r.stopped)
	}
	slices.Sort(r.done)
	if len(r.done) != 8 || !slices.Contains(r.done, "3 boom") || !slices.Contains(r.done, "8 <nil>") {
		t.Errorf("Done calls: %q", r.done)
	}
}

func TestBar(t *testing.T) {
	var out bytes.Buffer
	nps := []int{1, 2, 4, 8}
	_, _, err := predictAll(context.Background(), nps, 2, func(_ context.Context, np int) (Point, error) {
		time.Sleep(200 * time.Millisecond)
		return fakePoint(np), nil
	}, newBar(&out, true))
	if err != nil {
		t.Fatal(err)
	}
	if s := out.String(); !strings.Contains(s, "predicting") || !strings.Contains(s, "/4 np") {
		t.Errorf("bar output %q", s)
	}
	// A sweep whose every prediction fails still ends its bar and
	// returns.
	out.Reset()
	points, failed, err := predictAll(context.Background(), nps, 2, func(_ context.Context, np int) (Point, error) {
		return Point{}, errors.New("boom")
	}, newBar(&out, true))
	if err != nil || len(points) != 0 || len(failed) != len(nps) {
		t.Fatalf("predictAll = %v, %v, %v", points, failed, err)
	}
}

func TestTerminalProgress(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "stderr")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, ok := TerminalProgress(f).(silent); !ok {
		t.Errorf("TerminalProgress(file) is not silent")
	}
	if _, ok := TerminalProgress(nil).(silent); !ok {
		t.Errorf("TerminalProgress(nil) is not silent")
	}
}

// BenchmarkSweep measures the cost of the sweep itself, per process
// count, with a predictor that does nothing.
func BenchmarkPredictAll(b *testing.B) {
	nps := make([]int, 1024)
	for i := range nps {
		nps[i] = i + 1
	}
	predict := func(_ context.Context, np int) (Point, error) { return Point{NP: np, Time: 1}, nil }
	b.ResetTimer()
	for b.Loop() {
		if _, _, err := predictAll(context.Background(), nps, 0, predict, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(nps)), "ns/np")
}

// This file defines the progress display of a sweep.

package scale

import (
	"fmt"
	"io"
	"os"
	"sync/atomic"
	"time"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
	"golang.org/x/term"
)

// Progress is told how a sweep goes. Sweep never overlaps its calls.
type Progress interface {
	// Start is called once, before any prediction, with the process
	// counts in the order they will be started.
	Start(nps []int)
	// Done is called when the prediction at np has returned, with its
	// error.
	Done(np int, err error)
	// Stop is called once, when the sweep returns.
	Stop()
}

// TerminalProgress returns a progress bar drawn on f when f is a terminal,
// and a Progress that shows nothing otherwise, so that redirected output
// stays clean. Pass os.Stderr: the bar must not mix with results.
func TerminalProgress(f *os.File) Progress {
	if f == nil || !term.IsTerminal(int(f.Fd())) {
		return silent{}
	}
	return newBar(f, false)
}

// silent is the Progress that shows nothing.
type silent struct{}

func (silent) Start([]int)     {}
func (silent) Done(int, error) {}
func (silent) Stop()           {}

// bar is a progress bar in which each process count weighs its np: the
// cost of a prediction grows with np, so the bar and its estimate of the
// time left follow the work rather than the number of predictions.
type bar struct {
	out         io.Writer
	autoRefresh bool // render even when out is not a terminal (tests)

	progress *mpb.Progress
	bar      *mpb.Bar
	total    int   // number of process counts
	finished int64 // predictions returned, read by the renderer
}

func newBar(out io.Writer, autoRefresh bool) *bar {
	return &bar{out: out, autoRefresh: autoRefresh}
}

func (b *bar) Start(nps []int) {
	var weight int64
	for _, np := range nps {
		weight += int64(np)
	}
	b.total = len(nps)
	b.progress = mpb.New(
		mpb.WithOutput(b.out),
		mpb.WithWidth(64),
		mpb.WithRefreshRate(150*time.Millisecond),
		mpb.ContainerOptional(mpb.WithAutoRefresh(), b.autoRefresh),
	)
	b.bar = b.progress.AddBar(weight,
		mpb.PrependDecorators(
			decor.Name("predicting", decor.WCSyncSpaceR),
			decor.Any(func(decor.Statistics) string {
				return fmt.Sprintf("%d/%d np", atomic.LoadInt64(&b.finished), b.total)
			}, decor.WCSyncSpace),
		),
		mpb.AppendDecorators(decor.Elapsed(decor.ET_STYLE_GO)),
		mpb.BarRemoveOnComplete(),
	)
}

func (b *bar) Done(np int, _ error) {
	atomic.AddInt64(&b.finished, 1)
	b.bar.IncrInt64(int64(np))
}

func (b *bar) Stop() {
	if !b.bar.Completed() {
		// Failed or cancelled: the bar will not fill; take it away.
		b.bar.Abort(true)
	}
	b.progress.Wait()
}

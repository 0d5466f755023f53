// Benchmarks of the in-process runtime: point-to-point latency and
// bandwidth, collectives at np = 64, and the cost of the tracing hooks
// when tracing is off.
//
//	go test ./commlib -run '^$' -bench . -benchtime 2000x
package commlib

import (
	"fmt"
	"testing"
)

func BenchmarkPingPong(b *testing.B) {
	for _, size := range []int{1, 1 << 10, 64 << 10, 1 << 20, 4 << 20} {
		b.Run(fmt.Sprintf("bytes=%d", size), func(b *testing.B) {
			b.SetBytes(int64(2 * size)) // a round trip moves the message twice
			err := Run(2, func(c *Comm) {
				buf := make([]byte, size)
				if c.Rank() == 0 {
					b.ResetTimer()
				}
				for range b.N {
					if c.Rank() == 0 {
						c.Send(buf, 1, 0)
						c.Recv(buf, 1, 0)
					} else {
						c.Recv(buf, 0, 0)
						c.Send(buf, 0, 0)
					}
				}
				if c.Rank() == 0 {
					b.StopTimer()
					// One op is a round trip: report the one-way time too.
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/2000, "us/one-way")
				}
			})
			if err != nil {
				b.Fatal(err)
			}
		})
	}
}

// benchCollective times b.N calls of the collective that setup returns for
// each rank (setup allocates the buffers, outside the timed loop).
func benchCollective(b *testing.B, np int, setup func(c *Comm) func()) {
	err := Run(np, func(c *Comm) {
		body := setup(c)
		c.Barrier()
		if c.Rank() == 0 {
			b.ResetTimer()
		}
		for range b.N {
			body()
		}
		c.Barrier()
		if c.Rank() == 0 {
			b.StopTimer()
		}
	})
	if err != nil {
		b.Fatal(err)
	}
}

func BenchmarkAllreduce(b *testing.B) {
	for _, n := range []int{1, 1024} {
		b.Run(fmt.Sprintf("np=64/float64s=%d", n), func(b *testing.B) {
			benchCollective(b, 64, func(c *Comm) func() {
				in, out := make([]float64, n), make([]float64, n)
				return func() { c.Allreduce(in, out, Sum) }
			})
		})
	}
}

func BenchmarkAlltoall(b *testing.B) {
	for _, block := range []int{1, 1024} {
		b.Run(fmt.Sprintf("np=64/float64s-per-pair=%d", block), func(b *testing.B) {
			benchCollective(b, 64, func(c *Comm) func() {
				in, out := make([]float64, 64*block), make([]float64, 64*block)
				return func() { c.Alltoall(in, out) }
			})
		})
	}
}

func BenchmarkBarrier(b *testing.B) {
	b.Run("np=64", func(b *testing.B) { benchCollective(b, 64, func(c *Comm) func() { return c.Barrier }) })
}

// BenchmarkTraceHookDisabled measures what the tracing hooks add to every
// call when tracing is off: the enter hook and the exit check.
func BenchmarkTraceHookDisabled(b *testing.B) {
	err := Run(1, func(c *Comm) {
		b.ResetTimer()
		var sink int64
		for range b.N {
			t0 := c.traceStart()
			if c.w.tracer != nil {
				c.emit(t0, nil)
			}
			sink += int64(t0)
		}
		b.StopTimer()
		if sink != 0 {
			b.Fatal("tracing is off, yet the hook returned a time")
		}
	})
	if err != nil {
		b.Fatal(err)
	}
}

// BenchmarkTestCompleted is the cheapest commlib call, for scale next to
// the hook: Test of a completed request (ProcNull send).
func BenchmarkTestCompleted(b *testing.B) {
	err := Run(1, func(c *Comm) {
		buf := []byte{0}
		b.ResetTimer()
		for range b.N {
			r := c.Isend(buf, ProcNull, 0)
			c.Test(r)
		}
	})
	if err != nil {
		b.Fatal(err)
	}
}

// This file benchmarks the collective schedules (schedule.go) alone: the
// interpreter runs one per collective instance, over all its members.

package interp

import (
	"fmt"
	"testing"

	"github.com/predict-tools/predict/machine"
)

// BenchmarkSchedules runs the schedules of the collectives the testprogs
// call most (Allreduce, Bcast, Barrier, Alltoall) at np = 4096 and 8 with
// the algorithms infiniband-hdr chooses, small and large.
func BenchmarkSchedules(b *testing.B) {
	for _, n := range []int{4096, 8} {
		b.Run(fmt.Sprint("np", n), func(b *testing.B) { benchSchedules(b, n) })
	}
}

func benchSchedules(b *testing.B, n int) {
	m, err := machine.Preset("infiniband-hdr")
	if err != nil {
		b.Fatal(err)
	}
	w := &World{Compiled: &Compiled{mach: m}, nodeOf: make([]int32, n)}
	for r := range n {
		w.nodeOf[r] = int32(m.NodeOf(r, n))
	}
	w.intra, w.inter = linkOf(m.Level(false)), linkOf(m.Level(true))
	g := &group{size: n}
	enter := make([]int64, n)
	for r := range enter {
		enter[r] = int64(r * 1000)
	}
	cases := []struct {
		name  string
		bytes int64
	}{{"Allreduce", 8}, {"Allreduce", 1 << 20}, {"Bcast", 8}, {"Bcast", 1 << 20}, {"Barrier", 0}, {"Alltoall", 8 * int64(n)}}
	for _, c := range cases {
		bytes := make([]int64, n)
		for r := range bytes {
			bytes[r] = c.bytes
		}
		sim := &schedule{w: w, g: g, t: make([]int64, n), ovh: make([]int64, n)}
		b.Run(fmt.Sprintf("%s/%dB", c.name, c.bytes), func(b *testing.B) {
			for b.Loop() {
				copy(sim.t, enter)
				clear(sim.ovh)
				sim.run(c.name, 0, bytes)
			}
		})
	}
}

// Command masterworker is a dynamically load-balanced task farm. The work is
// the sum of k³ (mod 2^64) over the integers k of [0, N), cut into tasks of
// very uneven length: task i covers units_i·unitLen consecutive integers,
// units_i = (1 + r mod 8)·2^min(t, maxShift) with r a seeded random number
// and t the number of trailing zero bits of another (a heavy, Pareto-like
// tail: every doubling of the length is half as likely).
//
// Communication pattern: rank 0 is the master, the other ranks are workers.
// A worker sends a request (tag tagRequest, first time) or the result of its
// last task (tag tagResult) to rank 0; the master receives from AnySource
// with AnyTag, records the result, and answers the sender with the next task
// (tag tagTask) or, when none is left, a stop message (tag tagStop). Which
// worker does which task depends on timing; the results do not. With np=1
// the master does all tasks itself.
//
// Classes (tasks, unitLen, maxShift): S 200, 20000, 8; W 1000, 20000, 8;
// A 4000, 20000, 10; B 20000, 50000, 10; C 100000, 50000, 12. The master
// checks every result against the closed form Σk³ = (n(n−1)/2)² and that
// every task was done exactly once. The checksum (exact) holds the number of
// tasks and integers, the sum of all results and a digest (the sum of a bit
// mix of each result and its task index), all mod 2^64.
package main

import (
	"flag"
	"fmt"
	"math/bits"

	"github.com/predict-tools/predict/commlib"
	"github.com/predict-tools/predict/testprogs/internal/progutil"
)

var class = flag.String("class", "S", "problem class: S, W, A, B or C")

// problem holds the parameters of one class.
type problem struct {
	tasks    int
	unitLen  int64 // integers per work unit
	maxShift int   // tasks are at most 8·2^maxShift units long
}

var problems = []problem{
	{200, 20000, 8},
	{1000, 20000, 8},
	{4000, 20000, 10},
	{20000, 50000, 10},
	{100000, 50000, 12},
}

const (
	tagRequest = 1 // worker → master: give me a task (no result yet)
	tagResult  = 2 // worker → master: result of my task, give me the next
	tagTask    = 3 // master → worker: a task
	tagStop    = 4 // master → worker: no task left

	taskSeed = 0x9e3779b97f4a7c15
)

func main() {
	commlib.Main(func(c *commlib.Comm) {
		ci, err := progutil.ClassIndex(*class)
		if err != nil {
			c.Abort(err)
		}
		pr := problems[ci]
		progutil.NeedMemory(c, *class, int64(pr.tasks)*8*4)
		start := commlib.Wtime()
		if c.Rank() != 0 {
			worker(c)
			return
		}
		tasks := makeTasks(pr)
		var results []uint64
		var perRank []int
		if c.Size() == 1 {
			results = make([]uint64, len(tasks)-1)
			for i := range results {
				results[i] = cubeSum(tasks[i], tasks[i+1])
			}
			perRank = []int{len(results)}
		} else {
			results, perRank = master(c, tasks)
		}
		elapsed := progutil.Elapsed(start)

		var sum, digest uint64
		for i, r := range results {
			want := cubeSumClosed(tasks[i], tasks[i+1])
			progutil.Verify(c, r == want, "task %d [%d, %d): result %d, closed form %d", i, tasks[i], tasks[i+1], r, want)
			sum += r
			digest += mix64(r + uint64(i)*0x9e3779b97f4a7c15)
		}
		total := tasks[len(tasks)-1]
		progutil.Verify(c, sum == cubeSumClosed(0, total), "sum of the results %d, closed form %d", sum, cubeSumClosed(0, total))
		lo, hi := len(results), 0
		for _, n := range perRank[min(1, len(perRank)-1):] {
			lo, hi = min(lo, n), max(hi, n)
		}
		progutil.Printf(c, "masterworker class %s: %d tasks, %d integers, np=%d, tasks per worker %d..%d, time %.3f s\n",
			*class, len(results), total, c.Size(), lo, hi, elapsed)
		progutil.Checksum(c, fmt.Sprintf("tasks=%d n=%d sum=%016x digest=%016x", len(results), total, sum, digest))
	})
}

// makeTasks returns the task boundaries: task i covers [b[i], b[i+1]).
func makeTasks(pr problem) []int64 {
	b := make([]int64, pr.tasks+1)
	state := uint64(taskSeed)
	for i := range pr.tasks {
		r := splitmix(&state)
		t := bits.TrailingZeros64(splitmix(&state))
		units := int64(1+r%8) << min(t, pr.maxShift)
		b[i+1] = b[i] + units*pr.unitLen
	}
	return b
}

// splitmix is the SplitMix64 generator.
func splitmix(state *uint64) uint64 {
	*state += 0x9e3779b97f4a7c15
	return mix64(*state)
}

// mix64 is SplitMix64's output function, a bijective bit mixer.
func mix64(z uint64) uint64 {
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// master hands out the tasks on request until all are done and every worker
// is stopped. It returns the results by task and the tasks done per rank.
func master(c *commlib.Comm, tasks []int64) ([]uint64, []int) {
	ntasks := len(tasks) - 1
	results := make([]uint64, ntasks)
	done := make([]bool, ntasks)
	perRank := make([]int, c.Size())
	msg := make([]int64, 2)  // {task, result}
	task := make([]int64, 3) // {task, lo, hi}
	next := 0
	for active := c.Size() - 1; active > 0; {
		st := c.Recv(msg, commlib.AnySource, commlib.AnyTag)
		switch st.Tag {
		case tagResult:
			id := int(msg[0])
			progutil.Verify(c, id >= 0 && id < ntasks && !done[id], "rank %d returned task %d, which is not out", st.Source, id)
			done[id] = true
			results[id] = uint64(msg[1])
			perRank[st.Source]++
		case tagRequest:
		default:
			c.Abort(fmt.Errorf("master: unexpected tag %d from rank %d", st.Tag, st.Source))
		}
		if next < ntasks {
			task[0], task[1], task[2] = int64(next), tasks[next], tasks[next+1]
			c.Send(task, st.Source, tagTask)
			next++
		} else {
			c.Send(task, st.Source, tagStop)
			active--
		}
	}
	for id, d := range done {
		progutil.Verify(c, d, "task %d was never done", id)
	}
	return results, perRank
}

// worker asks rank 0 for tasks, computes them and returns the results until
// it is told to stop.
func worker(c *commlib.Comm) {
	msg := make([]int64, 2)
	task := make([]int64, 3)
	tag := tagRequest
	for {
		c.Send(msg, 0, tag)
		st := c.Recv(task, 0, commlib.AnyTag)
		if st.Tag == tagStop {
			return
		}
		msg[0] = task[0]
		msg[1] = int64(cubeSum(task[1], task[2]))
		tag = tagResult
	}
}

// cubeSum returns Σ k³ for k in [lo, hi), mod 2^64, by summing.
func cubeSum(lo, hi int64) uint64 {
	var s uint64
	for k := uint64(lo); k < uint64(hi); k++ {
		s += k * k * k
	}
	return s
}

// cubeSumClosed returns Σ k³ for k in [lo, hi), mod 2^64, from the closed
// form Σ_{k<n} k³ = (n(n−1)/2)².
func cubeSumClosed(lo, hi int64) uint64 {
	return cubesBelow(uint64(hi)) - cubesBelow(uint64(lo))
}

// cubesBelow returns (n(n−1)/2)² mod 2^64, halving the exact 128-bit product.
func cubesBelow(n uint64) uint64 {
	if n == 0 {
		return 0
	}
	hi, lo := bits.Mul64(n, n-1)
	t := lo>>1 | hi<<63
	return t * t
}

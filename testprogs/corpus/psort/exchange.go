package main

import (
	"fmt"
	"slices"

	"golang.org/x/sync/errgroup"

	"github.com/predict-tools/predict/commlib"
)

// splitters returns the np-1 keys that bound the ranks' ranges: each rank
// samples its sorted keys at np-1 even intervals, the ranks gather the
// samples, and the splitters are the gathered samples at even intervals.
func splitters(c *commlib.Comm, keys []uint64) []uint64 {
	np := c.Size()
	if np == 1 {
		return nil
	}
	samples := make([]uint64, np-1)
	for j := range samples {
		samples[j] = keys[(j+1)*len(keys)/np]
	}
	all := make([]uint64, np*(np-1))
	c.Allgather(samples, all)
	slices.Sort(all)
	sp := make([]uint64, np-1)
	for j := range sp {
		sp[j] = all[(j+1)*(np-1)]
	}
	return sp
}

// upper returns the number of keys of sorted a that are at most x.
func upper(a []uint64, x uint64) int {
	lo, hi := 0, len(a)
	for lo < hi {
		m := (lo + hi) / 2
		if a[m] <= x {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// exchange sends each rank the keys between its splitters and returns the
// runs received, one sorted run per source rank.
func exchange(c *commlib.Comm, keys []uint64, sp []uint64) [][]uint64 {
	np := c.Size()
	if np == 1 {
		return [][]uint64{keys}
	}
	sendCounts, sdispls := make([]int, np), make([]int, np)
	prev := 0
	for j := range np {
		end := len(keys)
		if j < np-1 {
			end = upper(keys, sp[j])
		}
		sdispls[j], sendCounts[j] = prev, end-prev
		prev = end
	}
	recvCounts, rdispls := make([]int, np), make([]int, np)
	c.Alltoall(sendCounts, recvCounts)
	total := 0
	for j := range np {
		rdispls[j] = total
		total += recvCounts[j]
	}
	recv := make([]uint64, total)
	c.Alltoallv(keys, sendCounts, sdispls, recv, recvCounts, rdispls)
	runs := make([][]uint64, np)
	for j := range np {
		runs[j] = recv[rdispls[j] : rdispls[j]+recvCounts[j]]
	}
	return runs
}

// mergeRuns merges sorted runs pairwise, round by round, the merges of a
// round in an errgroup of at most nt goroutines.
func mergeRuns(runs [][]uint64, nt int) ([]uint64, error) {
	for len(runs) > 1 {
		next := make([][]uint64, (len(runs)+1)/2)
		var g errgroup.Group
		g.SetLimit(nt)
		for i := range next {
			if 2*i+1 == len(runs) {
				next[i] = runs[2*i]
				continue
			}
			x, y := runs[2*i], runs[2*i+1]
			out := make([]uint64, len(x)+len(y))
			next[i] = out
			g.Go(func() error {
				merge(out, x, y)
				return nil
			})
		}
		if err := g.Wait(); err != nil {
			return nil, err
		}
		runs = next
	}
	return runs[0], nil
}

// verify checks that the ranks' keys are sorted, each rank's after its
// left neighbour's, and returns the position-weighted checksum of all the
// keys (on every rank).
func verify(c *commlib.Comm, a []uint64) uint64 {
	np, me := c.Size(), c.Rank()
	bad := int64(0)
	for i := 1; i < len(a); i++ {
		if a[i] < a[i-1] {
			bad++
		}
	}
	// My largest key goes right; my left neighbour's comes in.
	last, left := []uint64{0}, []uint64{0}
	if len(a) > 0 {
		last[0] = a[len(a)-1]
	}
	dest, src := me+1, me-1
	if dest == np {
		dest = commlib.ProcNull
	}
	if src < 0 {
		src = commlib.ProcNull
	}
	c.Sendrecv(last, dest, 0, left, src, 0)
	if me > 0 && len(a) > 0 && a[0] < left[0] {
		bad++
	}
	before := []int64{0}
	c.Exscan([]int64{int64(len(a))}, before, commlib.Sum)
	if me == 0 {
		before[0] = 0
	}
	local := []uint64{0, uint64(bad)}
	for i, x := range a {
		local[0] += uint64(before[0]+int64(i)+1) * x
	}
	global := []uint64{0, 0}
	c.Allreduce(local, global, commlib.Sum)
	if global[1] != 0 {
		c.Abort(fmt.Errorf("%d keys out of order", global[1]))
	}
	return global[0]
}

// This file defines the key generator and the distributed bucket sort:
// bucket counts, the assignment of buckets to ranks, the key exchange, the
// local counting sort and the verification of the global order.

package main

import (
	"github.com/predict-tools/predict/commlib"
	"github.com/predict-tools/predict/testprogs/internal/progutil"
)

// splitmix64 is the SplitMix64 mixing function: a good 64-bit hash of x.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// originalKey returns the generated key of global index i: the sum of the
// four 16-bit parts of a hash of i, scaled to [0, maxKey).
func originalKey(i int, seed uint64, maxKey int32) int32 {
	h := splitmix64(seed ^ uint64(i)*0xd1342543de82ef95)
	sum := int64(h&0xffff) + int64(h>>16&0xffff) + int64(h>>32&0xffff) + int64(h>>48)
	return int32(sum * int64(maxKey) >> 18)
}

// generate fills keys with the keys of the global indices first....
func generate(keys []int32, first int, seed uint64, maxKey int32) {
	for i := range keys {
		keys[i] = originalKey(first+i, seed, maxKey)
	}
}

// sorter holds one rank's buffers of the bucket sort.
type sorter struct {
	c                *commlib.Comm
	shift            int // key >> shift is the bucket
	n                int // keys over all ranks
	local, global    []int
	owner            []int // rank of every bucket
	sendCounts       []int
	recvCounts       []int
	sdispls, rdispls []int
	send             []int32
	recv             []int32
	keyCounts        []int32
	sorted           []int32
	lo, hi           int32 // key range of this rank's buckets
}

func newSorter(c *commlib.Comm, logMaxKey, n int) *sorter {
	np := c.Size()
	nb := 1 << logBuckets
	return &sorter{
		c: c, shift: logMaxKey - logBuckets, n: n,
		local: make([]int, nb), global: make([]int, nb), owner: make([]int, nb),
		sendCounts: make([]int, np), recvCounts: make([]int, np),
		sdispls: make([]int, np), rdispls: make([]int, np),
	}
}

// rank sorts the keys over all ranks and returns this rank's part of the
// sorted sequence (valid until the next call).
func (s *sorter) rank(keys []int32) []int32 {
	c := s.c
	np, me := c.Size(), c.Rank()
	clear(s.local)
	for _, k := range keys {
		s.local[k>>s.shift]++
	}
	c.Allreduce(s.local, s.global, commlib.Sum)
	s.assignBuckets()

	// Bucket-sort the keys into the send buffer: the buckets of a rank are
	// contiguous, so the keys of each destination are too.
	offset := make([]int, len(s.local))
	pos := 0
	for b, cnt := range s.local {
		offset[b] = pos
		pos += cnt
	}
	if cap(s.send) < len(keys) {
		s.send = make([]int32, len(keys))
	}
	s.send = s.send[:len(keys)]
	for _, k := range keys {
		b := k >> s.shift
		s.send[offset[b]] = k
		offset[b]++
	}
	clear(s.sendCounts)
	for b, cnt := range s.local {
		s.sendCounts[s.owner[b]] += cnt
	}
	c.Alltoall(s.sendCounts, s.recvCounts)
	total := 0
	for r := range np {
		s.rdispls[r] = total
		total += s.recvCounts[r]
	}
	s.sdispls[0] = 0
	for r := 1; r < np; r++ {
		s.sdispls[r] = s.sdispls[r-1] + s.sendCounts[r-1]
	}
	if cap(s.recv) < total {
		s.recv = make([]int32, total)
	}
	s.recv = s.recv[:total]
	c.Alltoallv(s.send, s.sendCounts, s.sdispls, s.recv, s.recvCounts, s.rdispls)

	// Counting sort of the received keys over this rank's key range.
	s.lo, s.hi = 0, 0
	for b := range s.owner {
		if s.owner[b] == me {
			if s.hi == 0 {
				s.lo = int32(b) << s.shift
			}
			s.hi = int32(b+1) << s.shift
		}
	}
	width := int(s.hi - s.lo)
	if cap(s.keyCounts) < width {
		s.keyCounts = make([]int32, width)
	}
	s.keyCounts = s.keyCounts[:width]
	clear(s.keyCounts)
	for _, k := range s.recv {
		s.keyCounts[k-s.lo]++
	}
	if cap(s.sorted) < total {
		s.sorted = make([]int32, total)
	}
	s.sorted = s.sorted[:0]
	for i, cnt := range s.keyCounts {
		for range cnt {
			s.sorted = append(s.sorted, s.lo+int32(i))
		}
	}
	return s.sorted
}

// assignBuckets gives every rank a contiguous run of buckets: rank r's run
// ends where the running total of keys first reaches (r+1)·n/np.
func (s *sorter) assignBuckets() {
	np := s.c.Size()
	r, cum := 0, 0
	for b, cnt := range s.global {
		s.owner[b] = r
		cum += cnt
		for r < np-1 && cum >= (r+1)*s.n/np {
			r++
		}
	}
}

// verifyOrder checks that this rank's keys are sorted and that they are not
// smaller than the largest key of the ranks to the left.
func (s *sorter) verifyOrder(sorted []int32) {
	c := s.c
	for i := 1; i < len(sorted); i++ {
		progutil.Verify(c, sorted[i-1] <= sorted[i], "rank %d: key %d (%d) after key %d (%d)", c.Rank(), i, sorted[i], i-1, sorted[i-1])
	}
	// Scan with Max carries the largest key so far past ranks without keys.
	largest := []int64{-1}
	if len(sorted) > 0 {
		largest[0] = int64(sorted[len(sorted)-1])
	}
	upTo := make([]int64, 1)
	c.Scan(largest, upTo, commlib.Max)
	left, right := c.Rank()-1, c.Rank()+1
	if left < 0 {
		left = commlib.ProcNull
	}
	if right >= c.Size() {
		right = commlib.ProcNull
	}
	fromLeft := []int64{-1}
	c.Sendrecv(upTo, right, 1, fromLeft, left, 1)
	if len(sorted) > 0 {
		progutil.Verify(c, fromLeft[0] <= int64(sorted[0]),
			"rank %d's first key %d is smaller than the largest key %d of the ranks before it", c.Rank(), sorted[0], fromLeft[0])
	}
}

// weightedSum returns Σ (p+1)·key_p over the global positions p of the
// sorted keys, modulo 2^64, on every rank.
func (s *sorter) weightedSum(sorted []int32) uint64 {
	c := s.c
	mine := []int64{int64(len(sorted))}
	before := make([]int64, 1)
	c.Exscan(mine, before, commlib.Sum)
	if c.Rank() == 0 {
		before[0] = 0 // Exscan leaves rank 0's result undefined
	}
	local := []uint64{0}
	for i, k := range sorted {
		local[0] += uint64(before[0]+int64(i)+1) * uint64(k)
	}
	total := make([]uint64, 1)
	c.Allreduce(local, total, commlib.Sum)
	return total[0]
}

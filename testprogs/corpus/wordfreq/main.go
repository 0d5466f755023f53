// Command wordfreq counts word frequencies in a text spread over the
// ranks, as a Go programmer would write a distributed word count: each
// rank makes its share of the text as strings, counts its words in a
// map[string]int, partitions its counts by a hash of the word (FNV-1a) to
// the rank that owns the word, and exchanges them with Alltoall (the
// counts of pairs) and Alltoallv (the pairs: the word's index in the
// vocabulary and its count). Each rank merges what it owns in a map, sorts
// its words by count with sort.Slice and sends its top ten to rank 0
// with Gather; rank 0 merges them into the global top ten.
//
// The text is word i = the vocabulary's word z(i), a Zipf-like draw from
// an index-only hash, so the counts, the top ten and the checksum are the
// same for every np.
//
// Classes (words in the text, vocabulary): S 2^18, 2^14; W 2^21, 2^16;
// A 2^23, 2^17; B 2^25, 2^18; C 2^27, 2^19.
package main

import (
	"flag"
	"fmt"
	"hash/fnv"
	"sort"
	"strconv"
	"strings"

	"github.com/predict-tools/predict/commlib"
	"github.com/predict-tools/predict/testprogs/internal/progutil"
)

var class = flag.String("class", "S", "problem class: S, W, A, B or C")

var (
	classWords = []int{1 << 18, 1 << 21, 1 << 23, 1 << 25, 1 << 27}
	classVocab = []int{1 << 14, 1 << 16, 1 << 17, 1 << 18, 1 << 19}
)

const top = 10

// wordOf returns the vocabulary index of the text's word i: a draw whose
// small indexes are the most frequent (the smaller of three uniform draws,
// squared down).
func wordOf(i, vocab int) int {
	h := uint64(i)*0x9e3779b97f4a7c15 + 0x2545f4914f6cdd1d
	best := uint64(vocab)
	for range 3 {
		h ^= h >> 31
		h *= 0xbf58476d1ce4e5b9
		h ^= h >> 29
		best = min(best, h%uint64(vocab))
	}
	return int(best * best / uint64(vocab))
}

// name is the word of vocabulary index w.
func name(w int) string { return "w" + strconv.Itoa(w) }

// owner is the rank that counts word s.
func owner(s string, np int) int {
	h := fnv.New32a()
	h.Write([]byte(s))
	return int(h.Sum32() % uint32(np))
}

type entry struct {
	word  int
	count int64
}

func main() {
	commlib.Main(func(c *commlib.Comm) {
		ci, err := progutil.ClassIndex(*class)
		if err != nil {
			c.Abort(err)
		}
		n, vocab := classWords[ci], classVocab[ci]
		rank, np := c.Rank(), c.Size()
		start := commlib.Wtime()

		// This rank's share of the text, as a Go program would hold it.
		first, count := progutil.Block(n, rank, np)
		var text strings.Builder
		for i := first; i < first+count; i++ {
			if i > first {
				text.WriteByte(' ')
			}
			text.WriteString(name(wordOf(i, vocab)))
		}

		// Count the words.
		counts := map[string]int{}
		for _, w := range strings.Fields(text.String()) {
			counts[w]++
		}

		// Partition the counts by owner: pairs (index, count).
		out := make([][]int64, np)
		for w, k := range counts {
			idx, err := strconv.Atoi(w[1:])
			if err != nil {
				c.Abort(fmt.Errorf("word %q: %v", w, err))
			}
			dst := owner(w, np)
			out[dst] = append(out[dst], int64(idx), int64(k))
		}
		sendCounts := make([]int, np)
		sendDispls := make([]int, np)
		var send []int64
		for j, pairs := range out {
			sendCounts[j], sendDispls[j] = len(pairs), len(send)
			send = append(send, pairs...)
		}
		recvCounts := make([]int, np)
		c.Alltoall(sendCounts, recvCounts)
		recvDispls := make([]int, np)
		total := 0
		for j, k := range recvCounts {
			recvDispls[j] = total
			total += k
		}
		recv := make([]int64, total)
		c.Alltoallv(send, sendCounts, sendDispls, recv, recvCounts, recvDispls)

		// Merge what this rank owns, and take its top ten.
		owned := map[int]int64{}
		for k := 0; k < len(recv); k += 2 {
			owned[int(recv[k])] += recv[k+1]
		}
		entries := make([]entry, 0, len(owned))
		var words int64
		for w, k := range owned {
			entries = append(entries, entry{w, k})
			words += k
		}
		sort.Slice(entries, func(a, b int) bool {
			if entries[a].count != entries[b].count {
				return entries[a].count > entries[b].count
			}
			return entries[a].word < entries[b].word
		})
		mine := make([]int64, 2*top+1) // pairs, then the words this rank owns
		for i := range top {
			mine[2*i] = -1
			if i < len(entries) {
				mine[2*i], mine[2*i+1] = int64(entries[i].word), entries[i].count
			}
		}
		mine[2*top] = words
		var all []int64
		if rank == 0 {
			all = make([]int64, np*len(mine))
		}
		c.Gather(mine, all, 0)
		elapsed := progutil.Elapsed(start)

		if rank != 0 {
			return
		}
		var best []entry
		var sum int64
		for r := range np {
			part := all[r*len(mine) : (r+1)*len(mine)]
			sum += part[2*top]
			for i := range top {
				if part[2*i] >= 0 {
					best = append(best, entry{int(part[2*i]), part[2*i+1]})
				}
			}
		}
		sort.Slice(best, func(a, b int) bool {
			if best[a].count != best[b].count {
				return best[a].count > best[b].count
			}
			return best[a].word < best[b].word
		})
		best = best[:min(top, len(best))]
		progutil.Verify(c, sum == int64(n), "the owners counted %d words, the text has %d", sum, n)
		var b strings.Builder
		for _, e := range best {
			fmt.Fprintf(&b, " %s:%d", name(e.word), e.count)
		}
		progutil.Printf(c, "wordfreq class %s: %d words, vocabulary %d, np=%d, time %.3f s\n", *class, n, vocab, np, elapsed)
		progutil.Printf(c, "top %d:%s\n", top, b.String())
		progutil.Checksum(c, fmt.Sprintf("words=%d top=%s", sum, strings.TrimSpace(b.String())))
	})
}

// Package progutil holds what the test programs share: problem classes in the
// manner of the NAS Parallel Benchmarks, checksum output, self-checks, a
// memory guard for classes too large for this machine, and a busy-wait work
// unit whose length is known (used by the pattern programs).
package progutil

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/predict-tools/predict/commlib"
)

// Classes lists the problem classes every test program accepts, smallest first.
var Classes = []string{"S", "W", "A", "B", "C"}

// ClassIndex returns the position of class in Classes, or an error naming the
// -class flag when it is not one of them.
func ClassIndex(class string) (int, error) {
	for i, c := range Classes {
		if c == class {
			return i, nil
		}
	}
	return 0, fmt.Errorf("-class %q: want one of %s", class, strings.Join(Classes, ", "))
}

// Printf prints on rank 0 only.
func Printf(c *commlib.Comm, format string, args ...any) {
	if c.Rank() == 0 {
		fmt.Printf(format, args...)
	}
}

// Checksum prints the line "checksum: VALUE" on rank 0. The value must not
// depend on the number of ranks: CI runs every program at several np and
// compares these lines.
func Checksum(c *commlib.Comm, value string) {
	Printf(c, "checksum: %s\n", value)
}

// Verify aborts the run with a clear message when ok is false.
func Verify(c *commlib.Comm, ok bool, format string, args ...any) {
	if !ok {
		c.Abort(fmt.Errorf("verification failed: "+format, args...))
	}
}

// RoundSig formats v with digits significant digits, so that checksums of
// floating-point results do not change with the order of a reduction.
func RoundSig(v float64, digits int) string {
	if v == 0 {
		v = 0 // print -0 as 0
	}
	return strconv.FormatFloat(v, 'e', digits-1, 64)
}

// Work busy-waits for d, measured with commlib.Wtime. Under the predictor
// Wtime is modeled time, so Work costs d there too.
func Work(d time.Duration) {
	end := commlib.Wtime() + d.Seconds()
	for commlib.Wtime() < end {
	}
}

// NeedMemory aborts the run with a clear message when the whole run (all
// ranks) would need more memory than this machine has available. perRank is
// the number of bytes one rank allocates.
func NeedMemory(c *commlib.Comm, class string, perRank int64) {
	total := perRank * int64(c.Size())
	avail, ok := availableMemory()
	if ok && total > avail {
		c.Abort(fmt.Errorf("class %s needs %.1f GiB in total at np=%d, this machine has %.1f GiB available; "+
			"the large classes exist for the predictor (predict run/scale), not for real runs here",
			class, float64(total)/(1<<30), c.Size(), float64(avail)/(1<<30)))
	}
}

// availableMemory reads MemAvailable from /proc/meminfo.
func availableMemory() (int64, bool) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "MemAvailable:" {
			kb, err := strconv.ParseInt(fields[1], 10, 64)
			if err != nil {
				return 0, false
			}
			return kb * 1024, true
		}
	}
	return 0, false
}

// Block returns the first index (0-based) and the number of the n points
// that part p of parts gets: the first n%parts parts get one point more.
func Block(n, p, parts int) (first, count int) {
	size, extra := n/parts, n%parts
	first = p*size + min(p, extra)
	count = size
	if p < extra {
		count++
	}
	return first, count
}

// HashFloats returns FNV-64a of the IEEE-754 bits of v, little-endian: a
// checksum of results that are bitwise identical for every np.
func HashFloats(v []float64) uint64 {
	h := fnv.New64a()
	buf := make([]byte, 0, 8<<10)
	for _, x := range v {
		buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(x))
		if len(buf) == cap(buf) {
			h.Write(buf)
			buf = buf[:0]
		}
	}
	h.Write(buf)
	return h.Sum64()
}

// Elapsed returns the seconds since start, for the timing lines programs print.
func Elapsed(start float64) float64 { return commlib.Wtime() - start }

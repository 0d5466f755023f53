// This file defines the parser of process-count ranges (the -np flag).

package scale

import (
	"errors"
	"fmt"
	"math/bits"
	"slices"
	"strconv"
	"strings"
)

// MaxNP is the largest process count a range may name: ranks are MPI
// ints, and no interpretation could hold more logical processes.
const MaxNP = 1<<31 - 1

// MaxPoints is the largest number of process counts a range may expand
// to. A sweep of more points would run for days; the bound keeps a typo
// ("1..100000000:1") from allocating gigabytes before anything is said.
const MaxPoints = 1 << 24

// ParseRange parses the process counts of a sweep, as given to -np. The
// text is a comma-separated list of items, each of them
//
//	64         a single count
//	8..256     lo, 2·lo, 4·lo, … up to hi (doubling)
//	8..256:8   lo, lo+step, lo+2·step, … up to hi
//
// Both ends of a range are always included, so "8..100" is 8, 16, 32, 64,
// 100. Spaces around items are ignored. The result is sorted and free of
// duplicates. An error names the item at fault and says what is wrong with
// it, as "-np 8..4: empty range (8 > 4)".
func ParseRange(s string) ([]int, error) {
	if strings.TrimSpace(s) == "" {
		return nil, errors.New("-np: no process count given")
	}
	items := strings.Split(s, ",")
	var (
		ranges = make([]npRange, 0, len(items))
		total  uint64
	)
	for _, item := range items {
		item = strings.TrimSpace(item)
		r, err := parseItem(item)
		if err != nil {
			return nil, err
		}
		ranges = append(ranges, r)
		// Each count is at most MaxPoints, so the sum cannot wrap.
		if total += r.count(); total > MaxPoints {
			return nil, fmt.Errorf("-np %s: more than %d process counts", abbreviate(s), MaxPoints)
		}
	}
	nps := make([]int, 0, total)
	for _, r := range ranges {
		nps = r.appendTo(nps)
	}
	slices.Sort(nps)
	return slices.Compact(nps), nil
}

// An npRange is one item of a range: lo..hi, doubling when step is 0.
type npRange struct{ lo, hi, step uint64 }

// count is the number of values r expands to; it is at most MaxPoints+1
// (parseItem rejects larger ranges).
func (r npRange) count() uint64 {
	if r.step == 0 {
		// lo·2^k ≤ hi for k < n, plus hi itself when it is not one of them.
		n := uint64(bits.Len64(r.hi / r.lo)) // floor(log2(hi/lo)) + 1
		if r.lo<<(n-1) != r.hi {
			n++
		}
		return n
	}
	n := (r.hi-r.lo)/r.step + 1
	if (r.hi-r.lo)%r.step != 0 {
		n++
	}
	return n
}

func (r npRange) appendTo(nps []int) []int {
	if r.step == 0 {
		for v := r.lo; v < r.hi; v *= 2 {
			nps = append(nps, int(v))
		}
	} else {
		for v := r.lo; v < r.hi; v += r.step {
			nps = append(nps, int(v))
		}
	}
	// No overflow above: v ≤ 2·MaxNP or v ≤ MaxNP + step, both far below
	// 2⁶⁴.
	return append(nps, int(r.hi))
}

// parseItem parses one comma-separated item of a range.
func parseItem(item string) (npRange, error) {
	fail := func(format string, args ...any) (npRange, error) {
		return npRange{}, fmt.Errorf("-np %s: "+format, append([]any{item}, args...)...)
	}
	if item == "" {
		return npRange{}, errors.New("-np: empty item in the list")
	}
	lo, rest, isRange := strings.Cut(item, "..")
	if !isRange {
		n, err := parseNP(item)
		if err != nil {
			return fail("%v", err)
		}
		return npRange{lo: n, hi: n, step: 1}, nil
	}
	hi, stepText, hasStep := strings.Cut(rest, ":")
	from, err := parseNP(lo)
	if err != nil {
		return fail("lower end: %v", err)
	}
	to, err := parseNP(hi)
	if err != nil {
		return fail("upper end: %v", err)
	}
	var step uint64 // 0: doubling
	if hasStep {
		s, err := strconv.ParseUint(strings.TrimSpace(stepText), 10, 64)
		switch {
		case errors.Is(err, strconv.ErrRange) || err == nil && s > MaxNP:
			return fail("step %s is too large", stepText)
		case err != nil:
			return fail("step %q is not a positive integer", stepText)
		case s == 0:
			return fail("step must be at least 1")
		}
		step = s
	}
	if from > to {
		return fail("empty range (%d > %d)", from, to)
	}
	r := npRange{lo: from, hi: to, step: step}
	if n := r.count(); n > MaxPoints {
		return fail("%d process counts, more than %d", n, MaxPoints)
	}
	return r, nil
}

// parseNP parses one process count.
func parseNP(s string) (uint64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, errors.New("missing process count")
	}
	n, err := strconv.ParseInt(s, 10, 64)
	switch {
	case errors.Is(err, strconv.ErrRange) && strings.HasPrefix(s, "-"):
		return 0, fmt.Errorf("process count %s is less than 1", s)
	case errors.Is(err, strconv.ErrRange) || err == nil && n > MaxNP:
		return 0, fmt.Errorf("%s is above the largest process count %d", s, MaxNP)
	case err != nil:
		return 0, fmt.Errorf("%q is not an integer", s)
	case n < 1:
		return 0, fmt.Errorf("process count %d is less than 1", n)
	}
	return uint64(n), nil
}

// abbreviate shortens a long flag value for an error message.
func abbreviate(s string) string {
	const keep = 40
	if len(s) <= keep {
		return s
	}
	return strings.ToValidUTF8(s[:keep], "") + "…"
}

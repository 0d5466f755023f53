// Package repro holds the smallest functions found for which modelgen's
// structural analysis builds an unstructured region, one per cause (see
// the doc comment of each). Run
//
//	go run ./modelgen/internal/robust -v . ./modelgen/internal/robust/testdata/repro
//
// Every function here gets a region today. Where the code after the
// construct is a lone return block the region also appears; the variants
// below end with an if so that tail-duplicating return blocks would not
// hide the cause.
package repro

import "iter"

func g() {}

// A1: the header of a rotated (test-at-bottom) range-over-int loop ends
// with the body's first if; its exit arm (return) is taken for the loop test.
func rangeIntEarlyReturn(n int) int {
	s := 0
	for i := range n {
		if i*i > n {
			return i
		}
		s += i
	}
	if s > 3 {
		g()
	}
	return s
}

// A2: the same in a for loop without condition: the first if, whose arm
// runs code and breaks, is taken for the loop test.
func infiniteIfBreak(n int) int {
	for {
		if n > 10 {
			g()
			break
		}
		if n < 0 {
			break
		}
		n++
	}
	if n > 3 {
		g()
	}
	return n
}

// A3: the same in a loop made by goto back to a switch (go/ssa's and
// go/cfg's builder.stmt, internal/expect.parseArgument).
func gotoRestart(x any) int {
	n := 0
start:
	switch v := x.(type) {
	case int:
		n += v
	case []any:
		x = v[0]
		goto start
	}
	if n > 3 {
		g()
	}
	return n
}

// Y: in the yield function of a range-over-func loop, continue is a jump to
// one shared "return true" block (yield-continue); nested ifs that continue
// make a merge node beyond the enclosing merge.
func yieldContinue(seq iter.Seq[int]) {
	for x := range seq {
		if x > 0 {
			if x > 5 {
				continue
			}
			if x > 7 {
				continue
			}
			g()
		}
		g()
	}
}

// E: an infinite loop whose only latch is the header of an inner loop (the
// inner loop's exit edge is the outer back edge): the bottom-test form is
// tried, its exit is in the body, and the infinite form is not tried.
func nestedInfinite(xs []int) {
	for {
		for _, x := range xs {
			if x > 0 {
				return
			}
		}
	}
}

// P: a for loop with a post statement but no condition: continue targets
// for.post, which only the loop-with-test form treats as the continue
// target; a nested continue revisits it.
func forPostNoCond(xs []int) int {
	i := 0
	for ; ; i++ {
		if xs[i] < 0 {
			if xs[i] < -5 {
				continue
			}
			g()
		}
		if xs[i] > 10 {
			break
		}
	}
	return i
}

// L: a labeled break out of a switch from inside a loop nested in it: the
// tree has break for loops only.
func breakSwitchFromLoop(c int, xs []int) int {
	n := 0
sw:
	switch c {
	case 1:
		for _, x := range xs {
			if x < 0 {
				break sw
			}
			n += x
		}
		n *= 2
	case 2:
		n = 1
	}
	if n > 3 {
		g()
	}
	return n
}

// F: a case falls through into a case that its own test also reaches (a
// node with two entries from different nesting levels).
func fallthroughSwitch(c int) int {
	x := 0
	switch c {
	case 1:
		x++
		fallthrough
	case 2:
		x += 2
	default:
		x = -1
	}
	if x > 3 {
		g()
	}
	return x
}

// G: a forward goto out of a nested if.
func gotoForward(a, b int) int {
	if a > 0 {
		if b > 0 {
			goto done
		}
		a++
	}
	a *= 2
done:
	if a > 3 {
		g()
	}
	return a + b
}

// I: an irreducible cycle (two entries), made with goto.
func irreducible(n int) int {
	i := 0
	if n > 10 {
		goto b
	}
a:
	i++
b:
	i *= 2
	if i < n {
		goto a
	}
	return i
}

// Structured (no region), for contrast: the early exits are returns.
func sharedReturn(a, b int) int {
	if a > 0 {
		if b > 0 {
			return 1
		}
	}
	return 0
}

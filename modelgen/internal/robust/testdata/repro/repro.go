// Package repro holds the smallest functions found that modelgen's
// structural analysis turns into unstructured regions, one per cause. Run
//
//	go run ./modelgen/internal/robust -v . ./modelgen/internal/robust/testdata/repro
package repro

import "iter"

func g() {}

// rangeIntEarlyReturn: a range-over-int loop (rotated by go/ssa: the test is
// at the bottom) whose first statement is an if that leaves the function.
func rangeIntEarlyReturn(n int) int {
	for i := range n {
		if i*i > n {
			return i
		}
	}
	return -1
}

// yieldContinue: the body of a range-over-func loop becomes a yield function
// where continue is a jump to one shared "return true" block.
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

// fallthroughSwitch: a case falls through into a case that is also reached
// by its own test.
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
	return x
}

// gotoForward: a forward goto out of a nested if.
func gotoForward(a, b int) int {
	if a > 0 {
		if b > 0 {
			goto done
		}
		a++
	}
	a *= 2
done:
	return a + b
}

// gotoRestart: a loop made by goto back to a switch (go/cfg's and go/ssa's
// builder.stmt).
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
	return n
}

// irreducible: a cycle with two entries, made with goto.
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

// sharedReturn: two nested ifs reach the same return block.
func sharedReturn(a, b int) int {
	if a > 0 {
		if b > 0 {
			return 1
		}
	}
	return 0
}

// Variants where the code after the construct is not a lone return block.

func rangeIntEarlyReturn2(n int) int {
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

func fallthroughSwitch2(c int) int {
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

func gotoForward2(a, b int) int {
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

func gotoRestart2(x any) int {
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

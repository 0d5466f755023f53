// Command shapes is a fixture of the model tests: control flow that gives
// an unstructured region, labelled break and continue, a switch and a
// recover tree. It is not an SPMD program; tests model it with --func main.
package main

import "fmt"

func main() {
	fmt.Println(irreducible(7), search([]int{1, 2, 3}, 2), sumPositive([]int{-1, 2}), classify(2), safe())
}

// irreducible has a loop entered at two places: an unstructured region.
func irreducible(n int) int {
	i := 0
	if n > 5 {
		goto b
	}
a:
	i++
b:
	i += 2
	if i < n {
		goto a
	}
	return i
}

func search(xs []int, want int) int {
	found := -1
outer:
	for i, x := range xs {
		for j := 0; j < 3; j++ {
			if x+j == want {
				found = i
				break outer
			}
			if j == 1 {
				continue outer
			}
		}
	}
	return found
}

func sumPositive(xs []int) int {
	s := 0
	for _, x := range xs {
		if x < 0 {
			continue
		}
		s += x
	}
	return s
}

func classify(x int) string {
	switch x {
	case 1:
		return "one"
	case 2, 3:
		return "a \"few\""
	default:
		return "many"
	}
}

func safe() (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("recovered: %v", r)
		}
	}()
	panic("boom")
}

// This file defines the unit of work: a fixed number of steps of the
// Park–Miller generator x ← 48271·x mod (2^31−1) computed in floating point,
// and its closed form, which the verification uses.

package main

import "math"

const (
	modulus    = 2147483647 // 2^31 − 1
	multiplier = 48271
	unitSteps  = 32   // generator steps per unit of work
	valueRange = 4096 // a unit's value is its final state mod valueRange
)

// unitValue runs the generator unitSteps times from seed in float64 and
// returns the final state mod valueRange. Every intermediate value is an
// integer below 2^47, so the arithmetic is exact and the value is an
// integer whatever the order in which values are later summed.
func unitValue(seed uint64) float64 {
	x := float64(seed)
	for range unitSteps {
		r := x * multiplier
		x = r - math.Floor(r/modulus)*modulus
	}
	return x - math.Floor(x/valueRange)*valueRange
}

// unitValueClosed is unitValue by the closed form seed·48271^unitSteps mod
// (2^31−1) in integer arithmetic.
func unitValueClosed(seed uint64) float64 {
	return float64(seed * multiplierPower % modulus % valueRange)
}

// multiplierPower is 48271^unitSteps mod (2^31−1).
var multiplierPower = func() uint64 {
	p := uint64(1)
	for range unitSteps {
		p = p * multiplier % modulus
	}
	return p
}()

// seed returns the generator's starting state for unit number unit of step
// step, given the value the step depends on (in 1..modulus−1).
func seed(unit, step int, input float64) uint64 {
	return 1 + (uint64(unit)*7919+uint64(step)*104729+uint64(input))%(modulus-1)
}

// This file defines the NPB linear congruential generator
// x(k+1) = a·x(k) mod 2^46 and its skip-ahead.

package main

const (
	lcgMultiplier = 1220703125 // a = 5^13
	lcgSeed       = 271828183  // NPB EP's initial seed
	lcgMask       = 1<<46 - 1
	lcgScale      = 1.0 / (1 << 46) // 2^-46: maps a state to a uniform number in (0, 1)
)

// mulMod46 returns a·x mod 2^46 for a, x < 2^46. The wrapped 64-bit product
// has the right low 46 bits because 2^46 divides 2^64, so this is exactly
// the integer that NPB's double-precision randlc computes.
func mulMod46(a, x uint64) uint64 {
	return a * x & lcgMask
}

// powMod46 returns a^n mod 2^46 by binary exponentiation.
func powMod46(a, n uint64) uint64 {
	result := uint64(1)
	for n > 0 {
		if n&1 == 1 {
			result = mulMod46(result, a)
		}
		a = mulMod46(a, a)
		n >>= 1
	}
	return result
}

// skipAhead returns the generator state after n steps from seed.
func skipAhead(seed, n uint64) uint64 {
	return mulMod46(powMod46(lcgMultiplier, n), seed)
}

// vranlc fills y with the next len(y) uniform numbers after state x and
// returns the new state, like NPB's vranlc.
func vranlc(x uint64, y []float64) uint64 {
	for i := range y {
		x = mulMod46(lcgMultiplier, x)
		y[i] = float64(x) * lcgScale
	}
	return x
}

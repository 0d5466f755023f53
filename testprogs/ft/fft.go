package main

import "math"

// fft is a radix-2 complex FFT of one power-of-two length.
type fft struct {
	n      int
	roots  []complex128 // roots[k] = exp(−2πi k/n), k < n/2
	iroots []complex128 // their conjugates, for the inverse transform
	rev    []int        // bit-reversal permutation
}

func newFFT(n int) *fft {
	bits := 0
	for 1<<bits < n {
		bits++
	}
	f := &fft{
		n:      n,
		roots:  make([]complex128, n/2),
		iroots: make([]complex128, n/2),
		rev:    make([]int, n),
	}
	for k := range n / 2 {
		s, c := math.Sincos(2 * math.Pi * float64(k) / float64(n))
		f.roots[k] = complex(c, -s)
		f.iroots[k] = complex(c, s)
	}
	for i := range n {
		r := 0
		for b := range bits {
			if i&(1<<b) != 0 {
				r |= 1 << (bits - 1 - b)
			}
		}
		f.rev[i] = r
	}
	return f
}

// transform computes the unnormalised discrete Fourier transform of x in
// place: with exp(−2πi jk/n) when inverse is false, exp(+2πi jk/n) when it is
// true (so an inverse after a forward transform multiplies x by n).
func (f *fft) transform(x []complex128, inverse bool) {
	n := f.n
	for i, r := range f.rev {
		if i < r {
			x[i], x[r] = x[r], x[i]
		}
	}
	roots := f.roots
	if inverse {
		roots = f.iroots
	}
	for size := 2; size <= n; size <<= 1 {
		half := size >> 1
		step := n / size
		for s := 0; s < n; s += size {
			lo := x[s : s+half]
			hi := x[s+half : s+size]
			for k := range half {
				t := roots[k*step] * hi[k]
				hi[k] = lo[k] - t
				lo[k] += t
			}
		}
	}
}

// NPB's linear congruential generator: x = a·x mod 2^46, value x/2^46.
const (
	lcgMult = 1220703125 // 5^13
	lcgSeed = 314159265
	mask46  = 1<<46 - 1
)

type lcg struct{ x uint64 }

// next advances the generator and returns a uniform value in (0, 1); the low
// 46 bits of the wrapped 64-bit product are the product mod 2^46, so this is
// exactly NPB's randlc/vranlc.
func (g *lcg) next() float64 {
	g.x = g.x * lcgMult & mask46
	return float64(g.x) * 0x1p-46
}

// skip advances the generator by n steps at once (multiplies by a^n mod 2^46).
func (g *lcg) skip(n int) {
	an, b := uint64(1), uint64(lcgMult)
	for ; n > 0; n >>= 1 {
		if n&1 != 0 {
			an = an * b & mask46
		}
		b = b * b & mask46
	}
	g.x = g.x * an & mask46
}

// initialPlane fills plane (nx·ny complex values, x fastest) with NPB FT's
// initial condition for z-plane k: element (i, j, k) takes random numbers
// 2g+1 and 2g+2 of the global sequence, g = i + nx·(j + ny·k), so the values
// depend on the global index only.
func initialPlane(plane []complex128, nx, ny, k int) {
	g := lcg{x: lcgSeed}
	g.skip(2 * nx * ny * k)
	for idx := range plane {
		re := g.next()
		im := g.next()
		plane[idx] = complex(re, im)
	}
}

package main

import (
	"cmp"
	"math"
	"slices"
)

// matrix holds one rank's rows of the sparse matrix in compressed-row form
// (columns are global indices).
type matrix struct {
	n      int   // order of the matrix (number of columns)
	rowPtr []int // row j's entries are col/val[rowPtr[j]:rowPtr[j+1]]
	col    []int32
	val    []float64
}

// multiply computes out = A v for the local rows; v is the whole vector.
func (m *matrix) multiply(v, out []float64) {
	for j := range out {
		sum := 0.0
		for k := m.rowPtr[j]; k < m.rowPtr[j+1]; k++ {
			sum += m.val[k] * v[m.col[k]]
		}
		out[j] = sum
	}
}

// NPB's linear congruential generator: x = a·x mod 2^46, value x/2^46.
const (
	lcgMult = 1220703125 // 5^13
	lcgSeed = 314159265
	mask46  = 1<<46 - 1
)

type lcg struct{ x uint64 }

// next advances the generator and returns a uniform value in (0, 1). The
// low 46 bits of the wrapped 64-bit product are the product mod 2^46, so
// this is exactly NPB's randlc.
func (g *lcg) next() float64 {
	g.x = g.x * lcgMult & mask46
	return float64(g.x) * 0x1p-46
}

// randomVectors generates NPB's na sparse random vectors (makea with sprnvc
// and vecset): vector i has nonzer random entries at distinct random
// positions plus 0.5 at position i. Vector i's positions and values are
// cols/vals[i*(nonzer+1):][:lens[i]]. Every rank generates all of them.
func randomVectors(na, nonzer int) (cols []int32, vals []float64, lens []int) {
	stride := nonzer + 1
	cols = make([]int32, na*stride)
	vals = make([]float64, na*stride)
	lens = make([]int, na)
	g := lcg{x: lcgSeed}
	g.next() // NPB's main draws one number (its initial zeta) before makea

	nn1 := 1 // the smallest power of two not less than na
	for {
		nn1 *= 2
		if nn1 >= na {
			break
		}
	}
	iv := make([]int, stride)
	v := make([]float64, stride)
	for i := range na {
		nzv := 0
		for nzv < nonzer {
			vecelt := g.next()
			vecloc := g.next()
			pos := int(float64(nn1)*vecloc) + 1
			if pos > na || slices.Contains(iv[:nzv], pos) {
				continue
			}
			v[nzv], iv[nzv] = vecelt, pos
			nzv++
		}
		// vecset: element i+1 (1-based) becomes 0.5.
		set := false
		for k := range nzv {
			if iv[k] == i+1 {
				v[k] = 0.5
				set = true
			}
		}
		if !set {
			v[nzv], iv[nzv] = 0.5, i+1
			nzv++
		}
		lens[i] = nzv
		for k := range nzv {
			cols[i*stride+k] = int32(iv[k] - 1)
			vals[i*stride+k] = v[k]
		}
	}
	return cols, vals, lens
}

// entry is one contribution to a matrix element before duplicates are summed.
type entry struct {
	col int32
	val float64
}

// makeMatrix builds rows [lo, hi) of NPB's matrix (sparse):
// A = Σ_i size_i · v_i v_iᵀ + (rcond − shift)·I with size_i = rcond^(i/na).
// Contributions to one element are summed in the order of i, as NPB does,
// so every rank builds exactly the rows a sequential run builds.
func makeMatrix(pr problem, lo, hi int) *matrix {
	cols, vals, lens := randomVectors(pr.na, pr.nonzer)
	stride := pr.nonzer + 1
	nrows := hi - lo

	// Count the contributions to each local row, then place them.
	start := make([]int, nrows+1)
	for i := range pr.na {
		vi := cols[i*stride:][:lens[i]]
		for _, j := range vi {
			if int(j) >= lo && int(j) < hi {
				start[int(j)-lo+1] += lens[i]
			}
		}
	}
	for r := range nrows {
		start[r+1] += start[r]
	}
	fill := slices.Clone(start[:nrows])
	entries := make([]entry, start[nrows])

	ratio := math.Pow(rcond, 1/float64(pr.na))
	size := 1.0
	for i := range pr.na {
		ci := cols[i*stride:][:lens[i]]
		vi := vals[i*stride:][:lens[i]]
		for a, ja := range ci {
			j := int(ja)
			if j < lo || j >= hi {
				continue
			}
			scale := size * vi[a]
			for b, jcol := range ci {
				va := vi[b] * scale
				if int(jcol) == j && j == i {
					va = va + rcond - pr.shift
				}
				entries[fill[j-lo]] = entry{col: jcol, val: va}
				fill[j-lo]++
			}
		}
		size *= ratio
	}

	// Sort each row by column (stable: duplicates stay in the order of i)
	// and sum the duplicates.
	m := &matrix{n: pr.na, rowPtr: make([]int, nrows+1)}
	m.col = make([]int32, 0, len(entries))
	m.val = make([]float64, 0, len(entries))
	for r := range nrows {
		row := entries[start[r]:start[r+1]]
		slices.SortStableFunc(row, func(x, y entry) int { return cmp.Compare(x.col, y.col) })
		first := len(m.col)
		for _, e := range row {
			if len(m.col) > first && m.col[len(m.col)-1] == e.col {
				m.val[len(m.val)-1] += e.val
				continue
			}
			m.col = append(m.col, e.col)
			m.val = append(m.val, 0+e.val)
		}
		m.rowPtr[r+1] = len(m.col)
	}
	return m
}

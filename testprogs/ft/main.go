// Command ft is the NAS Parallel Benchmarks' FT kernel: it solves a 3-D
// diffusion equation spectrally. A complex nx×ny×nz grid is filled from the
// NPB linear congruential generator (a = 5^13 mod 2^46, seed 314159265; each
// element's value depends only on its global index), transformed forward
// once; then each time step t multiplies the spectrum by
// exp(−4απ²|k|²) (α = 1e-6, cumulatively, as NPB's evolve), transforms it
// back and takes NPB's checksum: the sum of u(j mod nx, 3j mod ny, 5j mod nz)
// for j = 1..1024, divided by nx·ny·nz. The FFTs are this program's own
// radix-2 transforms.
//
// Communication pattern: slab decomposition. In real space every rank holds
// a slab of z-planes (the first nz%np ranks one plane more; a rank may hold
// none), in Fourier space a slab of y-rows with z contiguous. A 3-D FFT is
// 1-D FFTs along x and y on the local planes, a global transpose with
// Alltoallv (uneven counts, so any np works), and 1-D FFTs along z; the
// inverse runs the other way. Each time step costs one inverse 3-D FFT and
// one Allreduce of the 1024 selected elements (each owned by one rank, so
// the sum is exact and the checksum bit for bit the same for every np).
//
// Classes (nx×ny×nz, time steps): S 64³, 6; W 128×128×32, 6;
// A 256×256×128, 6; B 512×256×256, 20; C 512³, 20 (NPB's). Checks: a forward
// then inverse transform reproduces the initial grid, and every step's
// checksum matches NPB's reference value (relative error 1e-12, as NPB).
// The checksum line holds the last step's checksum at 10 significant digits.
package main

import (
	"flag"
	"fmt"
	"math"
	"math/cmplx"

	"github.com/predict-tools/predict/commlib"
	"github.com/predict-tools/predict/testprogs/internal/progutil"
)

var class = flag.String("class", "S", "problem class: S, W, A, B or C")

// problem holds the parameters of one NPB FT class.
type problem struct {
	nx, ny, nz int
	steps      int
	ref        []complex128 // NPB's checksum of every time step
}

var problems = []problem{
	{64, 64, 64, 6, []complex128{
		complex(5.546087004964e+02, 4.845363331978e+02),
		complex(5.546385409189e+02, 4.865304269511e+02),
		complex(5.546148406171e+02, 4.883910722336e+02),
		complex(5.545423607415e+02, 4.901273169046e+02),
		complex(5.544255039624e+02, 4.917475857993e+02),
		complex(5.542683411902e+02, 4.932597244941e+02),
	}},
	{128, 128, 32, 6, []complex128{
		complex(5.673612178944e+02, 5.293246849175e+02),
		complex(5.631436885271e+02, 5.282149986629e+02),
		complex(5.594024089970e+02, 5.270996558037e+02),
		complex(5.560698047020e+02, 5.260027904925e+02),
		complex(5.530898991250e+02, 5.249400845633e+02),
		complex(5.504159734538e+02, 5.239212247086e+02),
	}},
	{256, 256, 128, 6, []complex128{
		complex(5.046735008193e+02, 5.114047905510e+02),
		complex(5.059412319734e+02, 5.098809666433e+02),
		complex(5.069376896287e+02, 5.098144042213e+02),
		complex(5.077892868474e+02, 5.101336130759e+02),
		complex(5.085233095391e+02, 5.104914655194e+02),
		complex(5.091487099959e+02, 5.107917842803e+02),
	}},
	{512, 256, 256, 20, []complex128{
		complex(5.177643571579e+02, 5.077803458597e+02),
		complex(5.154521291263e+02, 5.088249431599e+02),
		complex(5.146409228649e+02, 5.096208912659e+02),
		complex(5.142378756213e+02, 5.101023387619e+02),
		complex(5.139626667737e+02, 5.103976610617e+02),
		complex(5.137423460082e+02, 5.105948019802e+02),
		complex(5.135547056878e+02, 5.107404165783e+02),
		complex(5.133910925466e+02, 5.108576573661e+02),
		complex(5.132470705390e+02, 5.109577278523e+02),
		complex(5.131197729984e+02, 5.110460304483e+02),
		complex(5.130070319283e+02, 5.111252433800e+02),
		complex(5.129070537032e+02, 5.111968077718e+02),
		complex(5.128182883502e+02, 5.112616233064e+02),
		complex(5.127393733383e+02, 5.113203605551e+02),
		complex(5.126691062020e+02, 5.113735928093e+02),
		complex(5.126064276004e+02, 5.114218460548e+02),
		complex(5.125504076570e+02, 5.114656139760e+02),
		complex(5.125002331720e+02, 5.115053595966e+02),
		complex(5.124551951846e+02, 5.115415130407e+02),
		complex(5.124146770029e+02, 5.115744692211e+02),
	}},
	{512, 512, 512, 20, []complex128{
		complex(5.195078707457e+02, 5.149019699238e+02),
		complex(5.155422171134e+02, 5.127578201997e+02),
		complex(5.144678022222e+02, 5.122251847514e+02),
		complex(5.140150594328e+02, 5.121090289018e+02),
		complex(5.137550426810e+02, 5.121143685824e+02),
		complex(5.135811056728e+02, 5.121496764568e+02),
		complex(5.134569343165e+02, 5.121870921893e+02),
		complex(5.133651975661e+02, 5.122193250322e+02),
		complex(5.132955192805e+02, 5.122454735794e+02),
		complex(5.132410471738e+02, 5.122663649603e+02),
		complex(5.131971141679e+02, 5.122830879827e+02),
		complex(5.131605205716e+02, 5.122965869718e+02),
		complex(5.131290734194e+02, 5.123075927445e+02),
		complex(5.131012720314e+02, 5.123166486553e+02),
		complex(5.130760908195e+02, 5.123241541685e+02),
		complex(5.130528295923e+02, 5.123304037599e+02),
		complex(5.130310107773e+02, 5.123356167976e+02),
		complex(5.130103090133e+02, 5.123399592211e+02),
		complex(5.129905029333e+02, 5.123435588985e+02),
		complex(5.129714421109e+02, 5.123465164008e+02),
	}},
}

const (
	alpha        = 1e-6  // diffusion constant of NPB FT
	checkPoints  = 1024  // elements summed by the checksum
	refTol       = 1e-12 // NPB's relative tolerance of a checksum
	roundTripTol = 1e-12 // largest accepted error of forward+inverse
	sumDigits    = 10
)

func main() {
	commlib.Main(func(c *commlib.Comm) {
		ci, err := progutil.ClassIndex(*class)
		if err != nil {
			c.Abort(err)
		}
		pr := problems[ci]
		s := newSlabs(c, pr.nx, pr.ny, pr.nz)
		progutil.NeedMemory(c, *class, s.memoryPerRank())
		ntotal := float64(pr.nx * pr.ny * pr.nz)

		start := commlib.Wtime()
		u := make([]complex128, s.sizeA()) // real space, z-slab
		spec := make([]complex128, s.sizeB())
		for kk := range s.zCount[s.rank] {
			initialPlane(s.plane(u, kk), pr.nx, pr.ny, s.zFirst[s.rank]+kk)
		}
		s.forward(u, spec)

		// Check: the inverse of the forward transform is the input (times n).
		s.inverse(spec, u)
		ref := make([]complex128, pr.nx*pr.ny)
		errs := []float64{0}
		for kk := range s.zCount[s.rank] {
			initialPlane(ref, pr.nx, pr.ny, s.zFirst[s.rank]+kk)
			for idx, v := range s.plane(u, kk) {
				errs[0] = max(errs[0], cmplx.Abs(v/complex(ntotal, 0)-ref[idx]))
			}
		}
		maxErr := []float64{0}
		c.Allreduce(errs, maxErr, commlib.Max)
		progutil.Verify(c, maxErr[0] <= roundTripTol, "forward+inverse FFT differs from the input by %g", maxErr[0])

		twiddle := s.twiddle()
		sel := make([]float64, 2*checkPoints)
		all := make([]float64, 2*checkPoints)
		var sum complex128
		for t := 1; t <= pr.steps; t++ {
			for idx, f := range twiddle {
				spec[idx] = complex(real(spec[idx])*f, imag(spec[idx])*f)
			}
			s.inverse(spec, u)

			// Every selected element lives on one rank; the others add zeros.
			clear(sel)
			for j := 1; j <= checkPoints; j++ {
				q, r, z := j%pr.nx, (3*j)%pr.ny, (5*j)%pr.nz
				kk := z - s.zFirst[s.rank]
				if kk >= 0 && kk < s.zCount[s.rank] {
					v := u[(kk*pr.ny+r)*pr.nx+q]
					sel[2*(j-1)], sel[2*j-1] = real(v), imag(v)
				}
			}
			c.Allreduce(sel, all, commlib.Sum)
			sum = 0
			for j := range checkPoints {
				sum += complex(all[2*j], all[2*j+1])
			}
			sum /= complex(ntotal, 0)
			rel := cmplx.Abs((sum - pr.ref[t-1]) / pr.ref[t-1])
			progutil.Verify(c, rel <= refTol, "step %d: checksum %v, NPB reference %v (relative error %.2e)", t, sum, pr.ref[t-1], rel)
		}
		elapsed := progutil.Elapsed(start)

		progutil.Printf(c, "ft class %s: %dx%dx%d, %d steps, np=%d, time %.3f s\n", *class, pr.nx, pr.ny, pr.nz, pr.steps, s.np, elapsed)
		progutil.Printf(c, "round trip error %.1e; all %d steps match NPB's reference values\n", maxErr[0], pr.steps)
		progutil.Checksum(c, fmt.Sprintf("%s %s", progutil.RoundSig(real(sum), sumDigits), progutil.RoundSig(imag(sum), sumDigits)))
	})
}

// block returns the first index and the length of rank's part of n items
// split over np ranks, the first n%np ranks getting one item more.
func block(n, rank, np int) (first, count int) {
	q, r := n/np, n%np
	count = q
	if rank < r {
		count++
	}
	first = rank*q + min(rank, r)
	return first, count
}

// slabs is the data distribution and the 3-D FFT of one rank.
//
// Layout A (real space): z-planes zFirst..zFirst+zCount of the rank,
// element (i, j, k) at ((k−zFirst)·ny + j)·nx + i.
// Layout B (Fourier space): y-rows yFirst..yFirst+yCount of the rank,
// element (i, j, k) at ((j−yFirst)·nx + i)·nz + k.
type slabs struct {
	c              *commlib.Comm
	rank, np       int
	nx, ny, nz     int
	zFirst, zCount []int // z-planes of every rank
	yFirst, yCount []int // y-rows of every rank
	fx, fy, fz     *fft
	line           []complex128

	// Alltoallv arguments: A→B (forward) and B→A (inverse).
	cntAB, dispAB, cntBA, dispBA []int // per peer, as seen by this rank's sends
	sendbuf, recvbuf             []complex128
}

func newSlabs(c *commlib.Comm, nx, ny, nz int) *slabs {
	np := c.Size()
	s := &slabs{
		c: c, rank: c.Rank(), np: np, nx: nx, ny: ny, nz: nz,
		zFirst: make([]int, np), zCount: make([]int, np),
		yFirst: make([]int, np), yCount: make([]int, np),
		fx: newFFT(nx), fy: newFFT(ny), fz: newFFT(nz),
		line:  make([]complex128, max(nx, ny, nz)),
		cntAB: make([]int, np), dispAB: make([]int, np),
		cntBA: make([]int, np), dispBA: make([]int, np),
	}
	for r := range np {
		s.zFirst[r], s.zCount[r] = block(nz, r, np)
		s.yFirst[r], s.yCount[r] = block(ny, r, np)
	}
	// Forward: this rank sends its planes × peer q's rows and receives
	// peer p's planes × its rows. The inverse swaps the roles, so its send
	// counts are the forward receive counts.
	for q := range np {
		s.cntAB[q] = s.zCount[s.rank] * s.yCount[q] * nx
		s.cntBA[q] = s.yCount[s.rank] * s.zCount[q] * nx
	}
	for q := 1; q < np; q++ {
		s.dispAB[q] = s.dispAB[q-1] + s.cntAB[q-1]
		s.dispBA[q] = s.dispBA[q-1] + s.cntBA[q-1]
	}
	n := max(s.sizeA(), s.sizeB())
	s.sendbuf = make([]complex128, n)
	s.recvbuf = make([]complex128, n)
	return s
}

func (s *slabs) sizeA() int { return s.zCount[s.rank] * s.ny * s.nx }
func (s *slabs) sizeB() int { return s.yCount[s.rank] * s.nx * s.nz }

// memoryPerRank estimates the bytes one rank allocates: the real-space and
// Fourier-space slabs, the twiddle factors and the two transpose buffers.
func (s *slabs) memoryPerRank() int64 {
	a := int64(s.nz/s.np+1) * int64(s.ny*s.nx)
	b := int64(s.ny/s.np+1) * int64(s.nx*s.nz)
	return 16*(a+b+2*max(a, b)) + 8*b
}

// plane returns local z-plane kk of a layout-A array.
func (s *slabs) plane(u []complex128, kk int) []complex128 {
	return u[kk*s.ny*s.nx : (kk+1)*s.ny*s.nx]
}

// twiddle returns exp(−4απ²|k̄|²) for the local Fourier-space elements,
// k̄ the signed wave numbers (NPB's compute_indexmap).
func (s *slabs) twiddle() []float64 {
	ap := -4 * alpha * math.Pi * math.Pi
	wave := func(i, n int) int { return (i+n/2)%n - n/2 }
	tw := make([]float64, s.sizeB())
	for jj := range s.yCount[s.rank] {
		kj := wave(s.yFirst[s.rank]+jj, s.ny)
		for i := range s.nx {
			ki := wave(i, s.nx)
			row := tw[(jj*s.nx+i)*s.nz:][:s.nz]
			for k := range row {
				kk := wave(k, s.nz)
				row[k] = math.Exp(ap * float64(ki*ki+kj*kj+kk*kk))
			}
		}
	}
	return tw
}

// planeFFT transforms the local z-planes of u along x and y.
func (s *slabs) planeFFT(u []complex128, inverse bool) {
	nx, ny := s.nx, s.ny
	col := s.line[:ny]
	for kk := range s.zCount[s.rank] {
		p := s.plane(u, kk)
		for j := range ny {
			s.fx.transform(p[j*nx:(j+1)*nx], inverse)
		}
		for i := range nx {
			for j := range ny {
				col[j] = p[j*nx+i]
			}
			s.fy.transform(col, inverse)
			for j := range ny {
				p[j*nx+i] = col[j]
			}
		}
	}
}

// forward computes the 3-D FFT of u (layout A, overwritten) into spec
// (layout B).
func (s *slabs) forward(u, spec []complex128) {
	nx, ny, nz := s.nx, s.ny, s.nz
	s.planeFFT(u, false)

	// Pack: to rank q go my planes of q's rows, ordered (row, x, plane).
	zc := s.zCount[s.rank]
	for q := range s.np {
		out := s.sendbuf[s.dispAB[q]:][:s.cntAB[q]]
		for jj := range s.yCount[q] {
			j := s.yFirst[q] + jj
			for kk := range zc {
				src := u[(kk*ny+j)*nx:][:nx]
				for i, v := range src {
					out[(jj*nx+i)*zc+kk] = v
				}
			}
		}
	}
	s.c.Alltoallv(s.sendbuf, s.cntAB, s.dispAB, s.recvbuf, s.cntBA, s.dispBA)

	// Unpack: rank p's block holds its planes of my rows.
	for p := range s.np {
		in := s.recvbuf[s.dispBA[p]:][:s.cntBA[p]]
		pc, pz := s.zCount[p], s.zFirst[p]
		for line := range s.yCount[s.rank] * nx {
			copy(spec[line*nz+pz:][:pc], in[line*pc:][:pc])
		}
	}
	for line := range s.yCount[s.rank] * nx {
		s.fz.transform(spec[line*nz:][:nz], false)
	}
}

// inverse computes the unnormalised inverse 3-D FFT of spec (layout B, kept)
// into u (layout A).
func (s *slabs) inverse(spec, u []complex128) {
	nx, ny, nz := s.nx, s.ny, s.nz
	z := s.line[:nz]
	for line := range s.yCount[s.rank] * nx {
		copy(z, spec[line*nz:][:nz])
		s.fz.transform(z, true)
		// Pack: to rank q go its planes of this line.
		for q := range s.np {
			qc := s.zCount[q]
			copy(s.sendbuf[s.dispBA[q]+line*qc:][:qc], z[s.zFirst[q]:][:qc])
		}
	}
	s.c.Alltoallv(s.sendbuf, s.cntBA, s.dispBA, s.recvbuf, s.cntAB, s.dispAB)

	// Unpack: rank p's block holds my planes of its rows, ordered (row, x, plane).
	zc := s.zCount[s.rank]
	for p := range s.np {
		in := s.recvbuf[s.dispAB[p]:][:s.cntAB[p]]
		for jj := range s.yCount[p] {
			j := s.yFirst[p] + jj
			for kk := range zc {
				dst := u[(kk*ny+j)*nx:][:nx]
				for i := range dst {
					dst[i] = in[(jj*nx+i)*zc+kk]
				}
			}
		}
	}
	s.planeFFT(u, true)
}

// Package testprogs holds the real SPMD programs that predict's tests,
// benchmarks and README use. Each subdirectory is a main package written
// against commlib that runs for real with
//
//	go run ./testprogs/NAME -np N [-class S|W|A|B|C] [-trace FILE]
//
// checks its own answer (against a sequential reference or an invariant),
// and prints one line "checksum: VALUE" whose value is the same for every
// np. The classes follow the NAS Parallel Benchmarks: S runs in well under
// a second here, the largest need more memory than a workstation has and
// exist for the predictor.
//
//   - pingpong: latency and bandwidth between ranks 0 and 1, 1 B to 4 MiB
//   - ep: NPB EP, Gaussian pairs from the NPB generator, Reduce at the end
//   - stencil: 1-D Jacobi, Sendrecv halos, Allreduce of the residual
//     (-converge stops on a tolerance)
//   - stencil2d: 2-D Jacobi on a Cartesian grid, Isend/Irecv/Waitall halos
//   - cg: NPB CG, rows distributed, Allgatherv and Allreduce dot products
//   - ft: NPB FT, 3-D FFT on slabs, Alltoall transposes
//   - amdahl: a configurable serial fraction (-serial) and a reduction per step
//   - masterworker: AnySource receives, dynamic distribution of uneven tasks
//   - hybrid: ranks × pool threads with locks and atomics
//   - patterns/...: one small program per inefficiency pattern, with its
//     expected finding next to the code and a near-miss variant (-near);
//     see patterns/README.md
//
// The test in this directory builds every program and checks that its
// checksum is the same at np = 1, 2, 3, 4 and 8.
package testprogs

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
// The accuracy corpus, corpus/...: programs written outside the tuning of
// the timing pass, the way numerical programmers write them, to judge the
// predictor (predict validate; go run ./validate/internal/accuracy). The
// stages' tests do not run them ([Dirs] leaves them out); the checksum test
// does.
//
//   - mg: 1-D multigrid V-cycles, recursive, Sendrecv halos on every level,
//     Allgatherv coarse solve (np ≤ 64)
//   - is: NPB IS bucket sort, Alltoall counts, Alltoallv keys (np ≤ 1024)
//   - lu: SSOR wavefront pipeline, Recv/Send per column chunk
//   - adi: ADI line solves, Alltoall transposes
//   - nbody: O(n²) N-body, Allgather positions, leapfrog
//   - swarm: allocation-heavy agent population, Sendrecv migration of
//     varying counts
//   - spmv: SpMV on a random graph, an irregular halo found through a map,
//     Isend/Irecv/Waitall of varying counts, power iteration
//   - bfs: level-synchronous BFS, frontiers by Alltoall + Alltoallv
//   - montecarlo: batches until a global error estimate (Allreduce) is
//     below a tolerance
//   - pic: 1-D particle-in-cell, migration by Sendrecv of varying counts,
//     Exscan field solve
//   - cellcheck: Game of Life with ages: a few calls and branches per cell,
//     a per-cell check that can Abort
//   - pool: a pool of -threads threads (4 by default, more than the cores)
//     and plain goroutines with sync.WaitGroup and sync.Mutex
//   - kmeans: goroutines with WaitGroup, Mutex, RWMutex and Once, a channel
//     collected in a select, a map and a recursive sum
//   - churn: diffusion on a ring that allocates its cells afresh every
//     step and copies its state by append; Sendrecv ghosts, Allreduce
//   - psort: sample sort; a recursive merge sort that starts goroutines
//     for its halves (WaitGroup), errgroup-limited merges of the received
//     runs; Allgather samples, Alltoall counts, Alltoallv keys
//   - wordfreq: a word count over strings (strings.Builder, strings.Fields,
//     a map[string]int), counts partitioned by hash/fnv, Alltoall and
//     Alltoallv of (word, count) pairs, sort.Slice and a Gather of the top
//     ten
//   - barneshut: 2-D Barnes-Hut N-body: a pointer quadtree built by
//     recursive insertion every step (replicated on every rank), centres
//     of mass by a recursive walk, forces by a recursive traversal with an
//     opening criterion; Allgatherv of the new positions
//   - bitonic: bitonic sort across a hypercube of ranks (the largest power
//     of two; the others wait): slices.Sort of each block, then log²
//     stages of a Sendrecv of the whole block with rank XOR j and a
//     compare-split merge
//   - heat3d: 3-D heat diffusion in slabs, the stencil (7 or 27 points) a
//     value behind an interface chosen by a flag; Irecv/Isend of the ghost
//     planes overlapped with the interior's update, Waitall, Allreduce
//     every -check steps
//   - summa: dense matrix product by SUMMA on a pr×pc grid (DimsCreate),
//     row and column communicators (Split), Bcast of panels cut where
//     the owners change, a cache-blocked triple loop
//   - qsort: each rank sorts its block with a recursive quicksort of its
//     own, then the runs are merged up a binary tree to rank 0 (Send/Recv
//     of runs whose lengths the receiver computes); Bcast of the check
//   - knn: nearest neighbours by a k-d tree that every rank builds
//     recursively (a quickselect at the median) and searches recursively
//     for its block of the queries; Allreduce of the sums and of the
//     slowest rank's time
//   - photon: Monte Carlo transport of particles through a slab: a
//     cross-section table by energy, interaction handlers behind an
//     interface chosen at each collision by a random number against the
//     cross sections; Allreduce of the tallies, Gather of the collisions
//
// The test in this directory builds every program (the corpus's too) and
// checks that its checksum is the same at np = 1, 2, 3, 4 and 8.
package testprogs

/* The C reference of testprogs/stencil: the same Jacobi iteration, data
   distribution and messages over MPI (two Sendrecv of one value and an
   Allreduce per iteration, Gatherv at the end), for the real run time of
   commlib over MPI against C over the same MPI library.
   mpicc -O2 -ffp-contract=off -o stencil-c stencil.c && mpirun -np 2 ./stencil-c -class W
   It prints the Go program's lines: the time of the iterations (MPI_Wtime)
   and the checksum (iterations, FNV-64a of the solution's bits), which equals
   the Go program's at every np (compare.sh checks it). */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* gosin is Go's math.Sin (math/sin.go) for 0 <= x < 2^29: the source term
   is computed with the bits the Go program computes (glibc's sin rounds
   differently), so that the checksums agree. */
static double gosin(double x) {
	static const double sn[] = {1.58962301576546568060e-10, -2.50507477628578072866e-8, 2.75573136213857245213e-6,
		-1.98412698295895385996e-4, 8.33333333332211858878e-3, -1.66666666666666307295e-1};
	static const double cs[] = {-1.13585365213876817300e-11, 2.08757008419747316778e-9, -2.75573141792967388112e-7,
		2.48015872888517045348e-5, -1.38888888888730564116e-3, 4.16666666666665929218e-2};
	const double PI4A = 7.85398125648498535156e-1, PI4B = 3.77489470793079817668e-8, PI4C = 2.69515142907905952645e-15;
	if (x == 0) return x;
	int sign = 0;
	uint64_t j = (uint64_t)(x * 0x1.45f306dc9c883p+00); /* Go's 4/Pi */
	double y = (double)j;
	if (j & 1) j++, y++;
	j &= 7;
	double z = ((x - y * PI4A) - y * PI4B) - y * PI4C;
	if (j > 3) sign = !sign, j -= 4;
	double zz = z * z;
	if (j == 1 || j == 2)
		y = 1.0 - 0.5 * zz + zz * zz * ((((((cs[0] * zz) + cs[1]) * zz + cs[2]) * zz + cs[3]) * zz + cs[4]) * zz + cs[5]);
	else
		y = z + z * zz * ((((((sn[0] * zz) + sn[1]) * zz + sn[2]) * zz + sn[3]) * zz + sn[4]) * zz + sn[5]);
	return sign ? -y : y;
}

static const double PI = 3.14159265358979323846264338327950288419716939937510582097494459; /* Go's math.Pi */

static void block(long n, int p, int parts, long *first, long *count) {
	long size = n / parts, extra = n % parts;
	*first = p * size + (p < extra ? p : extra);
	*count = size + (p < extra ? 1 : 0);
}

int main(int argc, char **argv) {
	MPI_Init(&argc, &argv);
	int rank, np;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &np);
	const char *cls = "S";
	for (int i = 1; i + 1 < argc; i++)
		if (strcmp(argv[i], "-class") == 0) cls = argv[i + 1];
	const char *names = "SWABC";
	const char *at = strchr(names, cls[0]);
	if (!at || cls[0] == 0 || cls[1] != 0) {
		if (rank == 0) fprintf(stderr, "-class %s: want S, W, A, B or C\n", cls);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	int ci = at - names;
	long n = 1L << (16 + 4 * ci);
	int iters = (int[]){100, 200, 500, 1000, 2000}[ci];
	long first, count;
	block(n, rank, np, &first, &count);
	int left = rank > 0 ? rank - 1 : MPI_PROC_NULL, right = rank + 1 < np ? rank + 1 : MPI_PROC_NULL;
	double *u = calloc(count + 2, sizeof(double)), *next = calloc(count + 2, sizeof(double));
	double *src = calloc(count + 2, sizeof(double));
	double h = 1 / (double)(n + 1);
	for (long k = 0; k < count + 2; k++) {
		double x = (double)(first + k) * h;
		src[k] = h * h * PI * PI * gosin(PI * x);
	}
	if (left == MPI_PROC_NULL) u[0] = next[0] = 1.0;
	if (right == MPI_PROC_NULL) u[count + 1] = next[count + 1] = 0.0;
	double local, global = 0;
	double start = MPI_Wtime();
	for (int it = 0; it < iters; it++) {
		MPI_Sendrecv(&u[1], 1, MPI_DOUBLE, left, 1, &u[count + 1], 1, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Sendrecv(&u[count], 1, MPI_DOUBLE, right, 2, &u[0], 1, MPI_DOUBLE, left, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		double residual = 0;
		for (long i = 1; i <= count; i++) {
			double v = 0.5 * (u[i - 1] + u[i + 1] + src[i]);
			double d = v - u[i];
			residual += d * d;
			next[i] = v;
		}
		local = residual;
		MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
		double *t = u; u = next; next = t;
	}
	double elapsed = MPI_Wtime() - start;
	double *solution = NULL;
	int *counts = NULL, *displs = NULL;
	if (rank == 0) {
		solution = malloc(n * sizeof(double));
		counts = malloc(np * sizeof(int));
		displs = malloc(np * sizeof(int));
		for (int r = 0; r < np; r++) {
			long f, c;
			block(n, r, np, &f, &c);
			displs[r] = (int)f, counts[r] = (int)c;
		}
	}
	MPI_Gatherv(&u[1], (int)count, MPI_DOUBLE, solution, counts, displs, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	if (rank == 0) {
		uint64_t fnv = 14695981039346656037ULL;
		for (long i = 0; i < n; i++) {
			uint64_t bits;
			memcpy(&bits, &solution[i], 8);
			for (int b = 0; b < 8; b++) {
				fnv ^= (bits >> (8 * b)) & 0xff;
				fnv *= 1099511628211ULL;
			}
		}
		printf("stencil class %s: n=%ld, np=%d, %d iterations, time %.3f s\n", cls, n, np, iters, elapsed);
		printf("checksum: iters=%d fnv=%016llx\n", iters, (unsigned long long)fnv);
	}
	MPI_Finalize();
	return 0;
}

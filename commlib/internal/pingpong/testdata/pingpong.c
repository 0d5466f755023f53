/* The C reference of commlib/internal/pingpong: the same exchange over the
   same MPI library, MPI_Send and MPI_Recv between ranks 0 and 1.
   mpicc -O2 -o pingpong-c pingpong.c && mpirun -np 2 ./pingpong-c
   -min and -max restrict the sizes, as for the Go program; -thread funneled
   asks for commlib's thread level. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
	int rank, reps = 5, min = 1, max = 4 << 20, funneled = 0, provided;
	for (int i = 1; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "-min") == 0) min = atoi(argv[i + 1]);
		if (strcmp(argv[i], "-max") == 0) max = atoi(argv[i + 1]);
		if (strcmp(argv[i], "-thread") == 0) funneled = strcmp(argv[i + 1], "funneled") == 0;
	}
	/* -thread funneled initialises MPI as commlib does (MPI_THREAD_FUNNELED),
	   under which Open MPI 4.1 takes a mutex in its calls; the default is
	   MPI_Init's MPI_THREAD_SINGLE. */
	if (funneled)
		MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
	else
		MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	char *buf = calloc(max, 1);
	if (rank == 0) printf("%10s %12s %12s\n", "bytes", "latency_us", "MB/s");
	for (int size = min; size <= max; size *= 2) {
		int iters = size <= 65536 ? 2000 : 100;
		double best[16];
		for (int r = 0; r < reps; r++) {
			MPI_Barrier(MPI_COMM_WORLD);
			double t0 = MPI_Wtime();
			for (int i = 0; i < iters; i++) {
				if (rank == 0) {
					MPI_Send(buf, size, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
					MPI_Recv(buf, size, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
				} else if (rank == 1) {
					MPI_Recv(buf, size, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
					MPI_Send(buf, size, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
				}
			}
			best[r] = (MPI_Wtime() - t0) / iters / 2;
		}
		for (int i = 1; i < reps; i++) /* sort: the median of the repetitions */
			for (int j = i; j > 0 && best[j] < best[j - 1]; j--) {
				double t = best[j]; best[j] = best[j - 1]; best[j - 1] = t;
			}
		double lat = best[reps / 2];
		if (rank == 0) printf("%10d %12.3f %12.1f\n", size, lat * 1e6, size / lat / 1e6);
	}
	free(buf);
	MPI_Finalize();
	return 0;
}

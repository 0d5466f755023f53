#!/usr/bin/env bash
# Ping-pong of commlib over MPI against C over the same Open MPI: RUNS
# alternating runs of each (C at MPI_THREAD_SINGLE and at commlib's
# MPI_THREAD_FUNNELED), the median per size, and the overhead.
#   commlib/internal/pingpong/testdata/compare.sh [RUNS] [mpirun options...]
set -euo pipefail
cd "$(dirname "$0")/../../../.."
runs=${1:-5}; shift || true
bin=$(mktemp -d); trap 'rm -rf "$bin"' EXIT
go build -tags mpi -o "$bin/go" ./commlib/internal/pingpong
mpicc -O2 -o "$bin/c" commlib/internal/pingpong/testdata/pingpong.c
# The Go binary sets Open MPI's eager limits to commlib's (64 KiB); the C
# reference gets the same, so that both use the same protocols.
for b in vader sm tcp; do export OMPI_MCA_btl_${b}_eager_limit=${OMPI_MCA_btl_vader_eager_limit:-65600}; done
[ "$(id -u)" = 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
echo "load before: $(uptime)"
for i in $(seq "$runs"); do
	mpirun -np 2 "$@" "$bin/c" | tail -n +2 > "$bin/c.$i"
	mpirun -np 2 "$@" "$bin/c" -thread funneled | tail -n +2 > "$bin/cf.$i"
	mpirun -np 2 "$@" "$bin/go" | tail -n +2 > "$bin/go.$i"
done
echo "load after:  $(uptime)"
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# C: MPI_Init (MPI_THREAD_SINGLE); Cf: MPI_THREAD_FUNNELED, commlib's level,
# under which Open MPI 4.1 locks a mutex in its calls.
printf "%10s %9s %9s %9s %9s %9s %9s %9s %8s %8s\n" bytes C_us Cf_us Go_us over_us overf_us C_MB/s Go_MB/s bw_loss loss_f
while read -r size _; do
	c=$(cat "$bin"/c.* | awk -v s="$size" '$1==s {print $2}' | median)
	f=$(cat "$bin"/cf.* | awk -v s="$size" '$1==s {print $2}' | median)
	g=$(cat "$bin"/go.* | awk -v s="$size" '$1==s {print $2}' | median)
	awk -v s="$size" -v c="$c" -v f="$f" -v g="$g" 'BEGIN {printf "%10d %9.3f %9.3f %9.3f %9.3f %9.3f %9.1f %9.1f %7.1f%% %7.1f%%\n", s, c, f, g, g-c, g-f, s/c, s/g, 100*(1-c/g), 100*(1-f/g)}'
done < "$bin/c.1"

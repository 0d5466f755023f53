#!/usr/bin/env bash
# The stencil's real run time: commlib in one process (ranks as goroutines),
# commlib over MPI, and stencil.c over the same Open MPI, at each np, RUNS
# alternating runs of each; the median of the iterations' time (the
# program's own "time" line, MPI_Wtime or commlib.Wtime around the loop)
# and of the whole command (start-up, set-up, the gather and its check
# included). Every run's checksum must equal the in-process np=1 run's.
#   testprogs/stencil/testdata/compare.sh [RUNS] [CLASS] [NPS]    (default 5 W "1 2")
set -euo pipefail
cd "$(dirname "$0")/../../.."
runs=${1:-5}; class=${2:-W}; nps=${3:-1 2}
bin=$(mktemp -d); trap 'rm -rf "$bin"' EXIT
go build -o "$bin/inproc" ./testprogs/stencil
go build -tags mpi -o "$bin/mpi" ./testprogs/stencil
mpicc -O2 -ffp-contract=off -o "$bin/c" testprogs/stencil/testdata/stencil.c
[ "$(id -u)" = 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
want=$("$bin/inproc" -np 1 -class "$class" | grep '^checksum')
echo "load before: $(uptime)"
for i in $(seq "$runs"); do
	for np in $nps; do
		for v in inproc mpi c; do
			case $v in
			inproc) cmd=("$bin/inproc" -np "$np") ;;
			*) cmd=(mpirun --oversubscribe -np "$np" "$bin/$v") ;;
			esac
			t0=$(date +%s.%N)
			out=$("${cmd[@]}" -class "$class")
			t1=$(date +%s.%N)
			sum=$(grep '^checksum' <<<"$out")
			if [ "$sum" != "$want" ]; then
				echo "$v at np=$np: $sum, want $want" >&2
				exit 1
			fi
			loop=$(sed -n 's/.*time \([0-9.]*\) s$/\1/p' <<<"$out")
			echo "$np $v $loop $(awk -v a="$t0" -v b="$t1" 'BEGIN {print b-a}')" >>"$bin/times"
		done
	done
done
echo "load after:  $(uptime)"
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
printf "class %s, %s runs each, medians; checksums all %s\n" "$class" "$runs" "${want#checksum: }"
printf "%4s %-8s %10s %10s %10s\n" np runtime loop_s command_s vs_C_loop
for np in $nps; do
	c=$(awk -v n="$np" '$1==n && $2=="c" {print $3}' "$bin/times" | median)
	for v in inproc mpi c; do
		l=$(awk -v n="$np" -v v="$v" '$1==n && $2==v {print $3}' "$bin/times" | median)
		w=$(awk -v n="$np" -v v="$v" '$1==n && $2==v {print $4}' "$bin/times" | median)
		awk -v n="$np" -v v="$v" -v l="$l" -v w="$w" -v c="$c" 'BEGIN {printf "%4d %-8s %10.3f %10.3f %9.2fx\n", n, v, l, w, l/c}'
	done
done

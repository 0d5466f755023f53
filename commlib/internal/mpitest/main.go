// Command mpitest exercises every commlib call and prints what each rank
// got, so that runs under the in-process runtime and under MPI can be
// compared byte for byte (TestMPIConformance, build tag mpi):
//
//	go run ./commlib/internal/mpitest -np 4 > inprocess.txt
//	go build -tags mpi -o mpitest ./commlib/internal/mpitest && mpirun -np 4 ./mpitest > mpi.txt
//
// -case names a failure to provoke instead: truncate, collective-root,
// abort, deadlock (for COMMLIB_TIMEOUT).
package main

import (
	"flag"
	"fmt"
	"os"
	"reflect"
	"runtime"
	"strings"

	"github.com/predict-tools/predict/commlib"
)

var failure = flag.String("case", "", "a failure to provoke: truncate, collective-root, abort, deadlock")

var procs = flag.Bool("procs", false, "print each rank's GOMAXPROCS inside commlib.Main, and nothing else")

// out collects the calling rank's results.
type out struct{ strings.Builder }

func (o *out) add(format string, args ...any) { fmt.Fprintf(&o.Builder, format+"\n", args...) }

func main() {
	flag.Parse()
	commlib.Main(func(c *commlib.Comm) {
		if *failure != "" {
			provoke(c, *failure)
			return
		}
		if *procs {
			fmt.Printf("rank %d: GOMAXPROCS %d\n", c.Rank(), runtime.GOMAXPROCS(0))
			return
		}
		var o out
		pointToPoint(c, &o)
		requests(c, &o)
		collectives(c, &o)
		reductions(c, &o)
		communicators(c, &o)
		report(c, &o)
	})
}

// report prints every rank's results at rank 0, in rank order.
func report(c *commlib.Comm, o *out) {
	text := []byte(o.String())
	if c.Rank() != 0 {
		c.Send([]int{len(text)}, 0, 99)
		c.Send(text, 0, 98)
		return
	}
	fmt.Printf("== rank 0\n%s", text)
	for r := 1; r < c.Size(); r++ {
		n := make([]int, 1)
		c.Recv(n, r, 99)
		buf := make([]byte, n[0])
		c.Recv(buf, r, 98)
		fmt.Printf("== rank %d\n%s", r, buf)
	}
}

func pointToPoint(c *commlib.Comm, o *out) {
	me, np := c.Rank(), c.Size()
	right, left := (me+1)%np, (me+np-1)%np
	// Every mode around the ring, the receive posted first where the mode needs it.
	c.BufferAttach(1 << 16)
	for _, mode := range []string{"Send", "Ssend", "Bsend", "Rsend"} {
		got := make([]float64, 3)
		r := c.Irecv(got, left, 1)
		c.Barrier() // every receive is posted before any Rsend
		send := []float64{float64(me), 0.5, -1}
		switch mode {
		case "Send":
			c.Send(send, right, 1)
		case "Ssend":
			c.Ssend(send, right, 1)
		case "Bsend":
			c.Bsend(send, right, 1)
		case "Rsend":
			c.Rsend(send, right, 1)
		}
		st := c.Wait(r)
		o.add("%s: %v from %d tag %d count %d", mode, got, st.Source, st.Tag, st.Count)
	}
	c.BufferDetach()
	// Wildcards: rank 0 receives from everyone in any order, then sorts.
	if me == 0 {
		seen := make([]string, np)
		for range np - 1 {
			buf := make([]int32, 4)
			st := c.Recv(buf, commlib.AnySource, commlib.AnyTag)
			seen[st.Source] = fmt.Sprintf("%v tag %d count %d", buf[:st.Count], st.Tag, st.Count)
		}
		o.add("wildcards: %q", seen[1:])
	} else {
		c.Send(make([]int32, me%4+1), 0, 10+me)
	}
	c.Barrier() // no later message matches the wildcards
	// ProcNull.
	st := c.Recv(make([]byte, 4), commlib.ProcNull, 3)
	c.Send([]byte{1}, commlib.ProcNull, 3)
	o.add("ProcNull: source %d tag %d count %d", st.Source, st.Tag, st.Count)
	// Sendrecv of every element type around the ring.
	for _, pair := range buffers(me, 5) {
		st := c.Sendrecv(pair[0], right, 2, pair[1], left, 2)
		o.add("Sendrecv %T: %v from %d", pair[1], pair[1], st.Source)
	}
	// A large message (rendezvous).
	big := make([]float64, 1<<17)
	for i := range big {
		big[i] = float64(me*len(big) + i)
	}
	got := make([]float64, len(big))
	c.Sendrecv(big, right, 4, got, left, 4)
	o.add("large: %v ... %v", got[0], got[len(got)-1])
}

func requests(c *commlib.Comm, o *out) {
	me, np := c.Rank(), c.Size()
	right, left := (me+1)%np, (me+np-1)%np
	c.BufferAttach(1 << 12)
	recvs := make([][]int, 4)
	var reqs []*commlib.Request
	for i := range recvs {
		recvs[i] = make([]int, 2)
		reqs = append(reqs, c.Irecv(recvs[i], left, 20+i))
	}
	c.Barrier()
	sends := []*commlib.Request{
		c.Isend([]int{me, 0}, right, 20),
		c.Issend([]int{me, 1}, right, 21),
		c.Ibsend([]int{me, 2}, right, 22),
		c.Irsend([]int{me, 3}, right, 23),
	}
	var order []int
	for {
		i, st := c.Waitany(reqs)
		if i < 0 {
			break
		}
		order = append(order, st.Tag)
	}
	o.add("Waitany: %d completions, %v", len(order), recvs)
	sts := c.Waitall(sends)
	o.add("Waitall sends: %d statuses", len(sts))
	c.BufferDetach()
	buf := make([]uint16, 3)
	r := c.Irecv(buf, left, 30)
	c.Send([]uint16{uint16(me), 7, 9}, right, 30)
	for {
		if ok, st := c.Test(r); ok {
			o.add("Test: %v from %d", buf, st.Source)
			break
		}
	}
}

// buffers returns a send buffer and a receive buffer of n elements of
// every element type, with values that depend on the rank.
func buffers(rank, n int) [][2]any {
	return [][2]any{
		pairOf(n, func(i int) int { return rank*100 + i - 3 }),
		pairOf(n, func(i int) int8 { return int8(rank*10 - i) }),
		pairOf(n, func(i int) int16 { return int16(rank*1000 - i) }),
		pairOf(n, func(i int) int32 { return int32(rank*100000 - i) }),
		pairOf(n, func(i int) int64 { return int64(rank)<<40 - int64(i) }),
		pairOf(n, func(i int) uint { return uint(rank*7 + i) }),
		pairOf(n, func(i int) byte { return byte(rank*3 + i) }),
		pairOf(n, func(i int) uint16 { return uint16(rank*300 + i) }),
		pairOf(n, func(i int) uint32 { return uint32(rank)*3000000 + uint32(i) }),
		pairOf(n, func(i int) uint64 { return uint64(rank)<<50 | uint64(i) }),
		pairOf(n, func(i int) float32 { return float32(rank)*0.1 + float32(i)/3 }),
		pairOf(n, func(i int) float64 { return float64(rank)*0.1 + float64(i)/3 + 1e-17 }),
		pairOf(n, func(i int) complex64 { return complex(float32(rank)*0.1, float32(i)/3) }),
		pairOf(n, func(i int) complex128 { return complex(float64(rank)*0.1, float64(i)/3) }),
		pairOf(n, func(i int) bool { return (rank+i)%3 == 0 }),
	}
}

func pairOf[T any](n int, f func(i int) T) [2]any {
	s := make([]T, n)
	for i := range s {
		s[i] = f(i)
	}
	return [2]any{s, make([]T, n)}
}

func collectives(c *commlib.Comm, o *out) {
	me, np := c.Rank(), c.Size()
	root := np - 1
	counts, displs := make([]int, np), make([]int, np)
	total := 0
	for r := range np {
		counts[r], displs[r] = r%3+1, total
		total += counts[r]
	}
	c.Barrier()
	for _, pair := range buffers(me, 2) {
		send := pair[0]
		// Bcast from the root.
		b := clone(send)
		c.Bcast(b, root)
		o.add("Bcast %T: %v", b, b)
		// Gather, Allgather, Alltoall into np×2 elements.
		all := makeLike(send, 2*np)
		c.Gather(send, all, root)
		if me == root {
			o.add("Gather: %v", all)
		}
		all = makeLike(send, 2*np)
		c.Allgather(send, all)
		o.add("Allgather: %v", all)
		sendAll := makeLike(send, 2*np)
		c.Allgather(send, sendAll) // a rank-dependent send buffer of np blocks
		c.Alltoall(shifted(sendAll, me), all)
		o.add("Alltoall: %v", all)
		// Scatter the root's np×2 elements.
		part := makeLike(send, 2)
		c.Scatter(shifted(sendAll, me), part, root)
		o.add("Scatter: %v", part)
		// v variants: rank r contributes counts[r] elements.
		mine := makeLike(send, counts[me])
		copyInto(mine, sendAll)
		vall := makeLike(send, total)
		c.Gatherv(mine, vall, counts, displs, root)
		if me == root {
			o.add("Gatherv: %v", vall)
		}
		vall = makeLike(send, total)
		c.Allgatherv(mine, vall, counts, displs)
		o.add("Allgatherv: %v", vall)
		got := makeLike(send, counts[me])
		c.Scatterv(vall, counts, displs, got, root)
		o.add("Scatterv: %v", got)
		// Alltoallv: rank r sends counts[r] elements to everyone.
		sc, sd, rc, rd := make([]int, np), make([]int, np), make([]int, np), make([]int, np)
		for r := range np {
			sc[r], sd[r] = counts[me], 0
			rc[r], rd[r] = counts[r], displs[r]
		}
		vall = makeLike(send, total)
		c.Alltoallv(mine, sc, sd, vall, rc, rd)
		o.add("Alltoallv: %v", vall)
	}
}

func reductions(c *commlib.Comm, o *out) {
	me := c.Rank()
	ops := []commlib.Op{commlib.Sum, commlib.Prod, commlib.Min, commlib.Max, commlib.Land, commlib.Lor,
		commlib.Lxor, commlib.Band, commlib.Bor, commlib.Bxor}
	for _, pair := range buffers(me+1, 3) {
		for _, op := range ops {
			if !applies(op, pair[0]) {
				continue
			}
			send := pair[0]
			r := makeLike(send, 3)
			c.Reduce(send, r, op, 0)
			if me == 0 {
				o.add("Reduce %v %T: %v", op, send, r)
			}
			r = makeLike(send, 3)
			c.Allreduce(send, r, op)
			o.add("Allreduce %v: %v", op, r)
			r = makeLike(send, 3)
			c.Scan(send, r, op)
			o.add("Scan %v: %v", op, r)
			r = makeLike(send, 3)
			c.Exscan(send, r, op)
			o.add("Exscan %v: %v", op, r)
		}
	}
	// Rank order: a sum whose value depends on the order of the additions.
	x := []float64{1e16}
	if me > 0 {
		x[0] = 1 + float64(me)*0.25
	}
	sum := make([]float64, 1)
	c.Allreduce(x, sum, commlib.Sum)
	o.add("ordered sum: %.17g", sum[0])
}

// applies reports whether commlib accepts op for the buffer's type.
func applies(op commlib.Op, buf any) bool {
	switch buf.(type) {
	case []float32, []float64:
		return op <= commlib.Lxor
	case []complex64, []complex128:
		return op == commlib.Sum || op == commlib.Prod || (op >= commlib.Land && op <= commlib.Lxor)
	case []bool:
		return op >= commlib.Land
	}
	return true
}

func communicators(c *commlib.Comm, o *out) {
	me, np := c.Rank(), c.Size()
	half := c.Split(me%2, -me)
	sum := make([]int, 1)
	half.Allreduce([]int{me}, sum, commlib.Sum)
	o.add("Split: rank %d of %d, sum %d", half.Rank(), half.Size(), sum[0])
	none := c.Split(map[bool]int{true: commlib.Undefined, false: 0}[me == 0], 0)
	o.add("Split Undefined: nil %v", none == nil)
	dup := c.Dup()
	r := dup.Irecv(make([]int, 1), (me+np-1)%np, 5)
	c.Send([]int{me}, (me+1)%np, 5) // does not match the Irecv on dup
	got := make([]int, 1)
	c.Recv(got, (me+np-1)%np, 5)
	dup.Send([]int{-me}, (me+1)%np, 5)
	dup.Wait(r)
	o.add("Dup: world message %d", got[0])
	dims := commlib.DimsCreate(np, []int{0, 0})
	grid := c.CartCreate(dims, []bool{true, false})
	if grid != nil {
		src, dst := grid.Shift(0, 1)
		s2, d2 := grid.Shift(1, 1)
		o.add("Cart %v: coords %v shift0 %d %d shift1 %d %d", grid.Dims(), grid.Coords(grid.Rank()), src, dst, s2, d2)
		grid.Barrier()
	}
	sub := half.Dup()
	b := []int{half.Rank()}
	sub.Bcast(b, 0)
	o.add("Dup of Split: %v", b)
}

// provoke makes the failure named by what.
func provoke(c *commlib.Comm, what string) {
	me, np := c.Rank(), c.Size()
	switch what {
	case "truncate":
		if me == 0 {
			c.Send(make([]float64, 8), 1%np, 0)
		} else if me == 1 {
			c.Recv(make([]float64, 4), 0, 0)
		}
	case "collective-root":
		c.Bcast(make([]int, 1), np)
	case "abort":
		if me == np-1 {
			c.Abort(fmt.Errorf("the answer is wrong"))
		}
		c.Recv(make([]int, 1), commlib.AnySource, 0)
	case "deadlock":
		c.Recv(make([]int, 1), (me+1)%np, 7)
	default:
		fmt.Fprintln(os.Stderr, "mpitest: unknown -case", what)
		os.Exit(2)
	}
}

// Buffer helpers on any slice type.

func clone(buf any) any {
	v := reflect.ValueOf(buf)
	out := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
	reflect.Copy(out, v)
	return out.Interface()
}

func makeLike(buf any, n int) any {
	return reflect.MakeSlice(reflect.TypeOf(buf), n, n).Interface()
}

// shifted returns buf rotated left by k elements.
func shifted(buf any, k int) any {
	v := reflect.ValueOf(buf)
	n := v.Len()
	out := reflect.MakeSlice(v.Type(), n, n)
	for i := range n {
		out.Index(i).Set(v.Index((i + k) % n))
	}
	return out.Interface()
}

// copyInto fills dst from the start of src.
func copyInto(dst, src any) { reflect.Copy(reflect.ValueOf(dst), reflect.ValueOf(src)) }

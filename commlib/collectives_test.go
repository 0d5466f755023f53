// This file tests the data-movement collectives (Barrier, Bcast, Gather(v),
// Scatter(v), Allgather(v), Alltoall(v)) with even and uneven counts, that
// buffers may be reused as soon as a collective returns, and collectives on
// concurrently used sub-communicators.

package commlib_test

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/predict-tools/predict/commlib"
)

func TestBarrierBcastGatherScatter(t *testing.T) {
	for _, np := range sizes {
		t.Run(fmt.Sprintf("np=%d", np), func(t *testing.T) {
			mustRun(t, np, func(c *commlib.Comm) {
				me := c.Rank()
				c.Barrier()
				for root := range np {
					// Bcast
					buf := []float64{-1, -1, -1}
					if me == root {
						buf = []float64{float64(root), 0.5, -2}
					}
					c.Bcast(buf, root)
					if !slices.Equal(buf, []float64{float64(root), 0.5, -2}) {
						t.Errorf("rank %d Bcast(root=%d) = %v", me, root, buf)
					}

					// Gather: 2 elements per rank.
					var all []int
					if me == root {
						all = make([]int, 2*np)
					}
					c.Gather([]int{me, me * me}, all, root)
					if me == root {
						for r := range np {
							if all[2*r] != r || all[2*r+1] != r*r {
								t.Errorf("Gather(root=%d) = %v", root, all)
								break
							}
						}
					}

					// Scatter: block r of the root's buffer to rank r.
					var src []uint8
					if me == root {
						src = make([]uint8, 3*np)
						for i := range src {
							src[i] = uint8(i + root)
						}
					}
					got := make([]uint8, 3)
					c.Scatter(src, got, root)
					for i, v := range got {
						if v != uint8(3*me+i+root) {
							t.Errorf("rank %d Scatter(root=%d) = %v", me, root, got)
							break
						}
					}
				}
				c.Barrier()
			})
		})
	}
}

func TestAllgatherAlltoall(t *testing.T) {
	for _, np := range sizes {
		t.Run(fmt.Sprintf("np=%d", np), func(t *testing.T) {
			mustRun(t, np, func(c *commlib.Comm) {
				me := c.Rank()
				all := make([]complex128, 2*np)
				c.Allgather([]complex128{complex(float64(me), 1), complex(0, float64(me))}, all)
				for r := range np {
					if all[2*r] != complex(float64(r), 1) || all[2*r+1] != complex(0, float64(r)) {
						t.Errorf("rank %d Allgather = %v", me, all)
						break
					}
				}

				// Alltoall with blocks of 2: block j of rank i's send buffer
				// becomes block i of rank j's receive buffer.
				send := make([]int, 2*np)
				for j := range np {
					send[2*j], send[2*j+1] = me*100+j*10, me*100+j*10+1
				}
				recv := make([]int, 2*np)
				c.Alltoall(send, recv)
				for i := range np {
					if recv[2*i] != i*100+me*10 || recv[2*i+1] != i*100+me*10+1 {
						t.Errorf("rank %d Alltoall = %v", me, recv)
						break
					}
				}
			})
		})
	}
}

// unevenCount is the number of elements rank r contributes in the
// v-collectives: zero for some ranks.
func unevenCount(r int) int { return (r * 2) % 5 }

// reversedDispls places the blocks of counts in reverse rank order with a
// gap of one element between blocks, and returns the displacements and the
// total length.
func reversedDispls(counts []int) ([]int, int) {
	displs := make([]int, len(counts))
	at := 1
	for r := len(counts) - 1; r >= 0; r-- {
		displs[r] = at
		at += counts[r] + 1
	}
	return displs, at
}

func TestGathervScatterv(t *testing.T) {
	for _, np := range sizes {
		t.Run(fmt.Sprintf("np=%d", np), func(t *testing.T) {
			counts := make([]int, np)
			for r := range counts {
				counts[r] = unevenCount(r)
			}
			displs, total := reversedDispls(counts)
			mustRun(t, np, func(c *commlib.Comm) {
				me := c.Rank()
				for _, root := range []int{0, np - 1, np / 2} {
					mine := make([]int, counts[me])
					for k := range mine {
						mine[k] = me*100 + k
					}
					var recv []int
					if me == root {
						recv = make([]int, total)
						for i := range recv {
							recv[i] = -1
						}
						c.Gatherv(mine, recv, counts, displs, root)
					} else {
						c.Gatherv(mine, nil, nil, nil, root) // ignored off the root
					}
					if me == root {
						want := make([]int, total)
						for i := range want {
							want[i] = -1
						}
						for r := range np {
							for k := range counts[r] {
								want[displs[r]+k] = r*100 + k
							}
						}
						if !slices.Equal(recv, want) {
							t.Errorf("Gatherv(root=%d) = %v, want %v", root, recv, want)
						}
					}

					// Scatterv the same layout back, into a larger buffer.
					var src []int
					if me == root {
						src = make([]int, total)
						for r := range np {
							for k := range counts[r] {
								src[displs[r]+k] = -(r*100 + k)
							}
						}
					}
					got := make([]int, counts[me]+2)
					for i := range got {
						got[i] = 7
					}
					if me == root {
						c.Scatterv(src, counts, displs, got, root)
					} else {
						c.Scatterv(nil, nil, nil, got, root)
					}
					for k := range got {
						want := 7
						if k < counts[me] {
							want = -(me*100 + k)
						}
						if got[k] != want {
							t.Errorf("rank %d Scatterv(root=%d) = %v", me, root, got)
							break
						}
					}
				}
			})
		})
	}
}

func TestAllgatherv(t *testing.T) {
	for _, np := range sizes {
		t.Run(fmt.Sprintf("np=%d", np), func(t *testing.T) {
			counts := make([]int, np)
			for r := range counts {
				counts[r] = unevenCount(r)
			}
			displs, total := reversedDispls(counts)
			mustRun(t, np, func(c *commlib.Comm) {
				me := c.Rank()
				mine := make([]float64, counts[me])
				for k := range mine {
					mine[k] = float64(me) + float64(k)/10
				}
				recv := make([]float64, total)
				c.Allgatherv(mine, recv, counts, displs)
				want := make([]float64, total)
				for r := range np {
					for k := range counts[r] {
						want[displs[r]+k] = float64(r) + float64(k)/10
					}
				}
				if !slices.Equal(recv, want) {
					t.Errorf("rank %d Allgatherv = %v, want %v", me, recv, want)
				}
			})
		})
	}
}

func TestAlltoallv(t *testing.T) {
	// Rank i sends (i+j)%3 elements to rank j; send blocks are laid out in
	// rank order, receive blocks in reverse order with gaps.
	pair := func(i, j int) int { return (i + j) % 3 }
	for _, np := range sizes {
		t.Run(fmt.Sprintf("np=%d", np), func(t *testing.T) {
			mustRun(t, np, func(c *commlib.Comm) {
				me := c.Rank()
				scounts, sdispls := make([]int, np), make([]int, np)
				rcounts := make([]int, np)
				at := 0
				for j := range np {
					scounts[j], sdispls[j] = pair(me, j), at
					at += scounts[j]
					rcounts[j] = pair(j, me)
				}
				send := make([]int, at)
				for j := range np {
					for k := range scounts[j] {
						send[sdispls[j]+k] = me*1000 + j*10 + k
					}
				}
				rdispls, total := reversedDispls(rcounts)
				recv := make([]int, total)
				c.Alltoallv(send, scounts, sdispls, recv, rcounts, rdispls)
				want := make([]int, total)
				for i := range np {
					for k := range rcounts[i] {
						want[rdispls[i]+k] = i*1000 + me*10 + k
					}
				}
				if !slices.Equal(recv, want) {
					t.Errorf("rank %d Alltoallv = %v, want %v", me, recv, want)
				}
			})
		})
	}
}

func TestCollectivesAllElementTypes(t *testing.T) {
	// Bcast and Allgather move every element type.
	mustRun(t, 3, func(c *commlib.Comm) {
		for _, tc := range elementCases {
			buf := recvBufFor(tc.send)
			if c.Rank() == 1 {
				reflect.Copy(reflect.ValueOf(buf), reflect.ValueOf(tc.send))
			}
			c.Bcast(buf, 1)
			checkReceived(t, "Bcast "+tc.name, tc.send, buf)

			n := reflect.ValueOf(tc.send).Len()
			all := reflect.MakeSlice(reflect.TypeOf(tc.send), 3*n, 3*n)
			c.Allgather(tc.send, all.Interface())
			for r := range 3 {
				checkReceived(t, "Allgather "+tc.name, tc.send, all.Slice(r*n, (r+1)*n).Interface())
			}
		}
	})
}

func TestCollectivesOnConcurrentSubcommunicators(t *testing.T) {
	// 8 ranks split into groups by rank%3 (sizes 3, 3, 2), each ordered by
	// descending world rank. The groups run different numbers of
	// collectives at the same time; each group's results involve only its
	// members.
	const np = 8
	mustRun(t, np, func(c *commlib.Comm) {
		color := c.Rank() % 3
		g := c.Split(color, -c.Rank())
		var members []int // world ranks, descending
		for r := np - 1; r >= 0; r-- {
			if r%3 == color {
				members = append(members, r)
			}
		}
		if g.Size() != len(members) || members[g.Rank()] != c.Rank() || g.WorldRank() != c.Rank() {
			c.Abort(fmt.Errorf("rank %d: group rank %d size %d, want members %v", c.Rank(), g.Rank(), g.Size(), members))
		}
		sum := 0
		for _, m := range members {
			sum += m
		}
		rounds := 40 + 25*color
		for it := range rounds {
			out := make([]int, 1)
			g.Allreduce([]int{c.Rank() + it}, out, commlib.Sum)
			if out[0] != sum+it*len(members) {
				t.Errorf("rank %d round %d: group Allreduce = %d, want %d", c.Rank(), it, out[0], sum+it*len(members))
				return
			}
			b := []int{-1}
			if g.Rank() == 0 {
				b[0] = it * 1000
			}
			g.Bcast(b, 0)
			if b[0] != it*1000 {
				t.Errorf("group Bcast = %d", b[0])
			}
			all := make([]int, g.Size())
			g.Allgather([]int{c.WorldRank()}, all)
			if !slices.Equal(all, members) {
				t.Errorf("group Allgather = %v, want %v", all, members)
			}
			sc := make([]int, 1)
			g.Scan([]int{1}, sc, commlib.Sum)
			if sc[0] != g.Rank()+1 {
				t.Errorf("group Scan = %d, want %d", sc[0], g.Rank()+1)
			}
		}
		// The world still works afterwards, and sees every rank.
		out := make([]int, 1)
		c.Allreduce([]int{rounds}, out, commlib.Max)
		if out[0] != 40+25*2 {
			t.Errorf("world Allreduce Max = %d", out[0])
		}
	})
}

func TestSplitOfSplit(t *testing.T) {
	mustRun(t, 8, func(c *commlib.Comm) {
		half := c.Split(c.Rank()/4, c.Rank())
		quarter := half.Split(half.Rank()/2, 0)
		if quarter.Size() != 2 || quarter.Rank() != c.Rank()%2 {
			t.Errorf("rank %d: quarter rank %d size %d", c.Rank(), quarter.Rank(), quarter.Size())
		}
		out := make([]int, 2)
		quarter.Allgather([]int{c.WorldRank()}, out)
		base := c.Rank() / 2 * 2
		if out[0] != base || out[1] != base+1 {
			t.Errorf("rank %d: quarter Allgather %v", c.Rank(), out)
		}
	})
}

func TestBuffersReusableWhenCollectiveReturns(t *testing.T) {
	// A rank that returns from a collective before the others have read
	// its contribution (the root of Bcast and Scatter(v), the non-roots of
	// Reduce and Gather(v), early ranks of Scan and Exscan) may overwrite
	// its buffer at once. The others call the collective only after the
	// overwrite (they wait for a token), so a contribution that was not
	// copied would show.
	const np = 3
	token := func(c *commlib.Comm, to int) { c.Send([]int{0}, to, 99) }
	await := func(c *commlib.Comm, from int) { c.Recv(make([]int, 1), from, 99) }
	mustRun(t, np, func(c *commlib.Comm) {
		me := c.Rank()
		// Bcast from 0.
		if me == 0 {
			buf := []int{1, 2, 3}
			c.Bcast(buf, 0)
			buf[0], buf[1], buf[2] = -1, -1, -1
			token(c, 1)
			token(c, 2)
		} else {
			await(c, 0)
			buf := make([]int, 3)
			c.Bcast(buf, 0)
			if !slices.Equal(buf, []int{1, 2, 3}) {
				t.Errorf("rank %d Bcast got %v after the root overwrote its buffer", me, buf)
			}
		}

		// Scatter and Scatterv from 0.
		if me == 0 {
			src := []float64{10, 11, 12}
			c.Scatter(src, make([]float64, 1), 0)
			srcv := []float64{0, 20, 21, 22}
			c.Scatterv(srcv, []int{1, 1, 2}, []int{0, 1, 2}, make([]float64, 2), 0)
			for i := range src {
				src[i] = -1
			}
			for i := range srcv {
				srcv[i] = -1
			}
			token(c, 1)
			token(c, 2)
		} else {
			await(c, 0)
			got := make([]float64, 1)
			c.Scatter(nil, got, 0)
			gotv := make([]float64, 2)
			c.Scatterv(nil, nil, nil, gotv, 0)
			wantv := [][]float64{nil, {20, 0}, {21, 22}}[me]
			if got[0] != float64(10+me) || !slices.Equal(gotv, wantv) {
				t.Errorf("rank %d Scatter got %v, Scatterv %v after the root overwrote its buffers", me, got, gotv)
			}
		}

		// Reduce, Gather and Gatherv to 0.
		if me != 0 {
			send := []int{me * 10}
			c.Reduce(send, nil, commlib.Sum, 0)
			c.Gather(send, nil, 0)
			sendv := []int{me, me}
			c.Gatherv(sendv[:me], nil, nil, nil, 0)
			send[0], sendv[0], sendv[1] = -100, -100, -100
			token(c, 0)
		} else {
			await(c, 1)
			await(c, 2)
			sum := make([]int, 1)
			c.Reduce([]int{0}, sum, commlib.Sum, 0)
			all := make([]int, np)
			c.Gather([]int{0}, all, 0)
			allv := make([]int, 3)
			c.Gatherv([]int{}, allv, []int{0, 1, 2}, []int{0, 0, 1}, 0)
			if sum[0] != 30 || !slices.Equal(all, []int{0, 10, 20}) || !slices.Equal(allv, []int{1, 2, 2}) {
				t.Errorf("Reduce %v, Gather %v, Gatherv %v after the senders overwrote their buffers", sum, all, allv)
			}
		}

		// Scan and Exscan: rank r returns once ranks 0..r have arrived.
		send := []int{me + 1}
		if me > 0 {
			await(c, me-1)
		}
		scan, ex := make([]int, 1), make([]int, 1)
		c.Scan(send, scan, commlib.Prod)
		c.Exscan(send, ex, commlib.Sum)
		send[0] = -1000
		if me < np-1 {
			token(c, me+1)
		}
		wantScan, wantEx := []int{1, 2, 6}[me], []int{0, 1, 3}[me]
		if scan[0] != wantScan || ex[0] != wantEx {
			t.Errorf("rank %d Scan %d Exscan %d, want %d %d", me, scan[0], ex[0], wantScan, wantEx)
		}
	})
}

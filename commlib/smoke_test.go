package commlib_test

import (
	"testing"

	"github.com/predict-tools/predict/commlib"
)

func TestSmoke(t *testing.T) {
	err := commlib.Run(4, func(c *commlib.Comm) {
		buf := []float64{float64(c.Rank())}
		out := make([]float64, 1)
		c.Allreduce(buf, out, commlib.Sum)
		if out[0] != 6 {
			panic(out)
		}
		r := c.Rank()
		c.Sendrecv(buf, (r+1)%4, 0, out, (r+3)%4, 0)
		if out[0] != float64((r+3)%4) {
			panic(out)
		}
		c.Barrier()
	})
	if err != nil {
		t.Fatal(err)
	}
	err = commlib.Run(2, func(c *commlib.Comm) {
		buf := make([]int, 1)
		c.Recv(buf, 1-c.Rank(), 0)
	})
	t.Log(err)
	if err == nil {
		t.Fatal("no deadlock")
	}
}

// This file tests the reduction's reading of commlib's argument roles.

package reduce

import (
	"reflect"
	"testing"

	"github.com/predict-tools/predict/commlib/catalog"
)

func TestCommSpecsFromRoles(t *testing.T) {
	for name, want := range map[string]commSpec{
		"Comm.Sendrecv":  {control: []int{0, 2, 3, 5, 6}, shape: []int{1, 4}, sendBufs: []int{1}, recvBufs: []int{4}},
		"Comm.Waitall":   {control: []int{0, 1}, contents: []int{1}},
		"Comm.Bcast":     {control: []int{0, 2}, shape: []int{1}, sendBufs: []int{1}, recvBufs: []int{1}, collective: true},
		"Comm.Alltoallv": {control: []int{0}, contents: []int{2, 3, 5, 6}, shape: []int{1, 4}, sendBufs: []int{1}, recvBufs: []int{4}, collective: true},
		"DimsCreate":     {control: []int{0}, contents: []int{1}},
		"Comm.Parallel":  {control: []int{0, 1, 2}},
		"RunWith":        {control: []int{1}},
		// Not read, or data: held only where their use is.
		"Comm.Abort":    {},
		"Comm.NewMutex": {},
		"AtomicInt.Add": {},
		"Threads":       {},
		"Wtime":         {},
	} {
		if got := commSpecs[name]; !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %+v, want %+v", name, got, want)
		}
	}
	if len(commSpecs) != len(catalog.All()) {
		t.Errorf("%d specs for %d operations", len(commSpecs), len(catalog.All()))
	}
	for _, q := range []string{"Wtime", "Threads", "Comm.Rank", "Comm.Size", "Comm.WorldRank"} {
		if !smallQueries[q] {
			t.Errorf("%s is not a small query", q)
		}
	}
	if len(smallQueries) != 5 {
		t.Errorf("small queries %v, want the five queries", smallQueries)
	}
}

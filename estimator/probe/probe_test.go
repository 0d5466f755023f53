package probe

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/predict-tools/predict/commlib"
)

func TestStatistics(t *testing.T) {
	Declare(3)
	f := get(0)
	f.mu.Lock()
	f.add("seg", 10)
	f.add("seg", 30)
	f.mu.Unlock()
	if f.count != 2 || f.sum != 40 || f.sumSq != 1000 || f.min != 10 || f.max != 30 {
		t.Errorf("stats %+v", f)
	}
	Loop(1, Now(), 5)
	Loop(1, Now(), 5)
	Loop(1, Now(), 7)
	if got := get(1).trips; got[5] != 2 || got[7] != 1 {
		t.Errorf("trips %v", got)
	}
	last := Iter(1, 0)
	last = Iter(1, last)
	IterEnd(1, last)
	if n := len(get(1).samples); n != 2 {
		t.Errorf("%d iteration samples, want 2", n)
	}
}

func TestConcurrent(t *testing.T) {
	Declare(10)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 1000 {
				Seg(int32(2+g%2), Now())
			}
		}()
	}
	wg.Wait()
	if c := get(2).count + get(3).count; c != 8000 {
		t.Errorf("%d segments recorded, want 8000", c)
	}
}

func TestBranchPerRank(t *testing.T) {
	Declare(20)
	const id = 12
	err := commlib.Run(3, func(c *commlib.Comm) {
		for i := range 10 {
			Branch(id, i < c.Rank()+2) // rank r: r+2 trues, then falses
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	raw := Snapshot()
	var rf *RawFragment
	for i := range raw.Fragments {
		if raw.Fragments[i].ID == id {
			rf = &raw.Fragments[i]
		}
	}
	if rf == nil || len(rf.Branches) != 3 {
		t.Fatalf("branches %+v", rf)
	}
	for r, b := range rf.Branches {
		want := int64(r + 2)
		if b.Rank != r || b.True != want || b.False != 10-want || len(b.Runs) != 2 || b.Runs[0].Len != want || !b.Runs[0].Value {
			t.Errorf("rank %d: %+v", r, b)
		}
	}
}

func TestFlush(t *testing.T) {
	Declare(1)
	Seg(0, Now())
	path := filepath.Join(t.TempDir(), "raw.json")
	t.Setenv("PREDICT_PROBE_OUT", path)
	if err := Flush(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var raw Raw
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	if raw.Version != RawVersion || len(raw.Fragments) == 0 {
		t.Errorf("raw %+v", raw)
	}
	if raw.Overhead.SegNS <= 0 || raw.Overhead.SegNS > 5000 {
		t.Errorf("segment overhead %g ns", raw.Overhead.SegNS)
	}
}

func BenchmarkSeg(b *testing.B) {
	Declare(1)
	for range b.N {
		Seg(0, Now())
	}
}

func BenchmarkIter(b *testing.B) {
	Declare(1)
	last := int64(0)
	for range b.N {
		last = Iter(0, last)
	}
}

func BenchmarkBranchNP1(b *testing.B) {
	Declare(1)
	for i := range b.N {
		Branch(0, i%3 == 0)
	}
}

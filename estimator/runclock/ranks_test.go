package runclock

import (
	"reflect"
	"testing"
)

// TestMerge: the ranks' times of a launched run make one run's: the span
// from the earliest start to the latest end, CPU and compute added.
func TestMerge(t *testing.T) {
	// Each process ran one rank: its compute is that rank's.
	got := Merge([]Times{
		{WallNS: 1000, CPUNS: 900, ComputeNS: 700, StartUnixNS: 5000, RankComputeNS: []int64{700, 0}},
		{WallNS: 1100, CPUNS: 1000, ComputeNS: 800, StartUnixNS: 5050, RankComputeNS: []int64{0, 800}},
	})
	if want := (Times{WallNS: 1150, CPUNS: 1900, ComputeNS: 1500, StartUnixNS: 5000, RankComputeNS: []int64{700, 800}}); !reflect.DeepEqual(got, want) {
		t.Errorf("merged %+v, want %+v", got, want)
	}
	// A rank without a start stamp: the longest span; CPU unknown if one
	// rank's is.
	got = Merge([]Times{{WallNS: 1000, CPUNS: -1, StartUnixNS: 5000}, {WallNS: 1100, CPUNS: 1000}})
	if want := (Times{WallNS: 1100, CPUNS: -1}); !reflect.DeepEqual(got, want) {
		t.Errorf("merged %+v, want %+v", got, want)
	}
}

// TestOutPath: the file a process writes is the named one, or its rank's
// under a launcher (PerRankEnv), from commlib's rank or the launcher's
// environment.
func TestOutPath(t *testing.T) {
	for _, env := range launcherRankEnvs {
		t.Setenv(env, "")
	}
	if got, err := OutPath("/w/run.json", 3); err != nil || got != "/w/run.json" {
		t.Errorf("in-process: %q, %v", got, err)
	}
	t.Setenv(PerRankEnv, "1")
	if got, err := OutPath("/w/run.json", 3); err != nil || got != "/w/run.json.rank3" {
		t.Errorf("rank 3: %q, %v", got, err)
	}
	if _, err := OutPath("/w/run.json", -1); err == nil {
		t.Errorf("no rank known: no error")
	}
	t.Setenv("OMPI_COMM_WORLD_RANK", "1")
	if got, err := OutPath("/w/run.json", -1); err != nil || got != "/w/run.json.rank1" {
		t.Errorf("Open MPI's rank 1: %q, %v", got, err)
	}
}

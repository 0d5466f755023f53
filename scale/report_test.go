package scale

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"github.com/predict-tools/predict/internal/golden"
	"github.com/predict-tools/predict/machine"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/predict-tools/predict/trace"
)

// analyses are the analyses the report tests print.
func analyses(t *testing.T) map[string]Analysis {
	t.Helper()
	out := make(map[string]Analysis)
	for name, points := range map[string][]Point{
		"amdahl": amdahlPoints(trace.Second, 0.05, doubling),
		"peak":   peakPoints(trace.Second, doubling),
		"steps":  peakPoints(trace.Second, []int{8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88, 96}),
		"single": amdahlPoints(trace.Second, 0.05, []int{4}),
	} {
		a, err := Analyze(points, nil, Options{BaselineNP: 0, BaselineTime: 0})
		if err != nil {
			t.Fatal(err)
		}
		a.Name = "example.com/testprogs/" + name
		out[name] = a
	}

	// Weak scaling, with a serial part that grows with the problem and
	// ranks idle while rank 0 does it; and a sweep where some np fail.
	weak, err := Analyze(weakPoints(trace.Second, 0.01, doubling), nil, Options{Weak: true})
	if err != nil {
		t.Fatal(err)
	}
	weak.Name, weak.Args, weak.Profile = "example.com/app", []string{"-n", "{np*65536}"}, "app.profile.json"
	weak.Machine = &machine.Info{Name: "cluster", Origin: "calibrated", Description: "a test cluster", File: "cluster.machine.json"}
	out["weak"] = weak
	failures := []Failure{{NP: 3, Error: "main.go:22: rank 0: Abort: np=3: want a power of two"}, {NP: 6, Error: "not enough memory"}}
	failed, err := Analyze(amdahlPoints(trace.Second, 0.05, []int{1, 2, 4, 8}), failures, Options{})
	if err != nil {
		t.Fatal(err)
	}
	failed.Name = "example.com/pow2"
	out["failed"] = failed
	return out
}

func TestWriteTextGolden(t *testing.T) {
	for name, a := range analyses(t) {
		var buf bytes.Buffer
		if err := a.WriteText(&buf); err != nil {
			t.Fatal(err)
		}
		golden.Check(t, filepath.Join("testdata", name+".golden"), buf.Bytes())
	}
}

func TestWriteJSONRoundTrip(t *testing.T) {
	for name, a := range analyses(t) {
		var buf bytes.Buffer
		if err := a.WriteJSON(&buf); err != nil {
			t.Fatal(err)
		}
		var back Analysis
		if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(back, a) {
			t.Errorf("%s: JSON round trip differs:\n got  %+v\n want %+v", name, back, a)
		}
		// Same analysis, same bytes.
		var again bytes.Buffer
		back.WriteJSON(&again)
		if !bytes.Equal(again.Bytes(), buf.Bytes()) {
			t.Errorf("%s: JSON not deterministic", name)
		}
	}
}

func TestWriteCSVRoundTrip(t *testing.T) {
	for name, a := range analyses(t) {
		var buf bytes.Buffer
		if err := a.WriteCSV(&buf); err != nil {
			t.Fatal(err)
		}
		records, err := csv.NewReader(&buf).ReadAll()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(records[0], csvHeader) || len(records) != len(a.Rows)+len(a.Failed)+1 {
			t.Fatalf("%s: header %q, %d records for %d rows", name, records[0], len(records), len(a.Rows))
		}
		lines := a.lines()
		for i, rec := range records[1:] {
			integer := func(s string) int64 {
				v, err := strconv.ParseInt(s, 10, 64)
				if err != nil {
					t.Fatal(err)
				}
				return v
			}
			float := func(s string) float64 {
				v, err := strconv.ParseFloat(s, 64)
				if err != nil {
					t.Fatal(err)
				}
				return v
			}
			if f := lines[i].failure; f != nil {
				want := make([]string, len(csvHeader))
				want[0], want[len(want)-1] = strconv.Itoa(f.NP), f.Error
				if !reflect.DeepEqual(rec, want) {
					t.Errorf("%s: CSV line %d = %q, want %q", name, i, rec, want)
				}
				continue
			}
			got := Row{
				NP: int(integer(rec[0])), Time: trace.Time(integer(rec[1])),
				Speedup: float(rec[2]), Efficiency: float(rec[3]),
				Compute: trace.Time(integer(rec[4])), Comm: trace.Time(integer(rec[5])),
				Wait: trace.Time(integer(rec[6])), Idle: trace.Time(integer(rec[7])),
				ComputeShare: float(rec[8]), CommShare: float(rec[9]), WaitShare: float(rec[10]), IdleShare: float(rec[11]),
				CoreWait: trace.Time(integer(rec[12])), CoreWaitShare: float(rec[13]),
			}
			if rec[14] != "" {
				got.Args = strings.Fields(rec[14])
			}
			if !reflect.DeepEqual(got, *lines[i].row) || rec[15] != "" {
				t.Errorf("%s: CSV row %d = %+v (error %q), want %+v", name, i, got, rec[15], *lines[i].row)
			}
		}
	}
}

func TestWriteTextEmpty(t *testing.T) {
	var buf bytes.Buffer
	if err := (Analysis{}).WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	if got := buf.String(); got != "Baseline: np=0, 0ns\n\nNo predictions.\n" {
		t.Errorf("empty analysis: %q", got)
	}
}

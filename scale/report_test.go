package scale

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"

	"github.com/predict-tools/predict/trace"
)

var update = flag.Bool("update", false, "rewrite the golden files")

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
		a, err := Analyze(points, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		a.Name = "./testprogs/" + name
		out[name] = a
	}
	return out
}

func TestWriteTextGolden(t *testing.T) {
	for name, a := range analyses(t) {
		var buf bytes.Buffer
		if err := a.WriteText(&buf); err != nil {
			t.Fatal(err)
		}
		golden(t, filepath.Join("testdata", name+".golden"), buf.Bytes())
	}
}

func golden(t *testing.T, file string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(file, got, 0o666); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (go test -update rewrites it); got:\n%s", file, got)
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
		if !reflect.DeepEqual(records[0], csvHeader) || len(records) != len(a.Rows)+1 {
			t.Fatalf("%s: header %q, %d records for %d rows", name, records[0], len(records), len(a.Rows))
		}
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
			got := Row{
				NP: int(integer(rec[0])), Time: trace.Time(integer(rec[1])),
				Speedup: float(rec[2]), Efficiency: float(rec[3]),
				Compute: trace.Time(integer(rec[4])), Comm: trace.Time(integer(rec[5])), Wait: trace.Time(integer(rec[6])),
				ComputeShare: float(rec[7]), CommShare: float(rec[8]), WaitShare: float(rec[9]),
			}
			if got != a.Rows[i] {
				t.Errorf("%s: CSV row %d = %+v, want %+v", name, i, got, a.Rows[i])
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

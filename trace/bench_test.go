package trace

import (
	"bytes"
	"io"
	"os"
	"testing"
)

// bigTrace repeats the real trace of stencil2d (np 4, 217 events) end to
// end until it has at least n events, with fresh message, request and
// collective ids in each copy.
func bigTrace(tb testing.TB, n int) (Header, []Event) {
	f, err := os.Open("testdata/stencil2d-np4.jsonl")
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	h, base, err := ReadJSONL(f, "stencil2d-np4.jsonl")
	if err != nil {
		tb.Fatal(err)
	}
	var span Time
	var ids, seqs int64
	for _, e := range base {
		span = max(span, e.Exit)
		ids = max(ids, e.Message, e.Request, e.Collective)
		seqs = max(seqs, e.Seq)
	}
	shift := func(id, k int64) int64 {
		if id == 0 {
			return 0
		}
		return id + k*ids
	}
	var events []Event
	for k := int64(0); len(events) < n; k++ {
		for _, e := range base {
			e.Enter += Time(k) * span
			e.Exit += Time(k) * span
			e.Seq += k * seqs
			e.Message, e.Request, e.Collective = shift(e.Message, k), shift(e.Request, k), shift(e.Collective, k)
			if e.Requests != nil {
				reqs := make([]int64, len(e.Requests))
				for j, r := range e.Requests {
					reqs[j] = shift(r, k)
				}
				e.Requests = reqs
			}
			events = append(events, e)
		}
	}
	return h, events
}

// BenchmarkConvert measures the conversion of a trace of 100,000 events
// from native JSON lines in memory: reading, sorting and writing.
func BenchmarkConvert(b *testing.B) {
	h, events := bigTrace(b, 100000)
	var in bytes.Buffer
	if err := WriteJSONL(&in, h, events); err != nil {
		b.Fatal(err)
	}
	for _, format := range Formats {
		b.Run(format, func(b *testing.B) {
			for b.Loop() {
				h, events, err := ReadJSONL(bytes.NewReader(in.Bytes()), "big.jsonl")
				if err != nil {
					b.Fatal(err)
				}
				Sort(events)
				if format == "paraver" {
					err = WriteParaver(io.Discard, io.Discard, io.Discard, h, events)
				} else {
					err = Encode(io.Discard, format, h, events)
				}
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(events))*float64(b.N)/b.Elapsed().Seconds(), "events/s")
		})
	}
}

// BenchmarkWrite measures the writers alone on the same trace.
func BenchmarkWrite(b *testing.B) {
	h, events := bigTrace(b, 100000)
	Sort(events)
	for _, format := range Formats {
		b.Run(format, func(b *testing.B) {
			for b.Loop() {
				var err error
				if format == "paraver" {
					err = WriteParaver(io.Discard, io.Discard, io.Discard, h, events)
				} else {
					err = Encode(io.Discard, format, h, events)
				}
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(events))*float64(b.N)/b.Elapsed().Seconds(), "events/s")
		})
	}
}

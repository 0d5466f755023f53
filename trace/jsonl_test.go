package trace

import (
	"bytes"
	"strings"
	"testing"
)

func TestJSONLRoundTrip(t *testing.T) {
	events := []Event{
		{Rank: 1, Kind: KindOp, Op: "Recv", Peer: 0, Root: NoPeer, Tag: 3, Bytes: 800, Message: 7, Site: "a.go:10", Enter: 5 * Microsecond, Exit: 9 * Microsecond, Seq: 2},
		{Rank: 0, Kind: KindOp, Op: "Send", Peer: 1, Root: NoPeer, Tag: 3, Bytes: 800, Message: 7, Protocol: "eager", Site: "a.go:8", Enter: 5 * Microsecond, Exit: 6 * Microsecond, Seq: 1},
		{Rank: 0, Thread: 2, Kind: KindOp, Op: "Mutex.Lock", Peer: NoPeer, Root: NoPeer, Object: 4, Enter: Microsecond, Exit: 2 * Microsecond, Seq: 1},
	}
	Sort(events)
	if events[0].Op != "Mutex.Lock" || events[1].Op != "Send" || events[2].Op != "Recv" {
		t.Fatalf("sort order: %v %v %v", events[0].Op, events[1].Op, events[2].Op)
	}
	var buf bytes.Buffer
	if err := WriteJSONL(&buf, Header{Source: "commlib", NP: 2, Clock: "monotonic"}, events); err != nil {
		t.Fatal(err)
	}
	h, got, err := ReadJSONL(&buf, "t.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if h.Format != FormatName || h.Version != FormatVersion || h.NP != 2 {
		t.Errorf("header %+v", h)
	}
	if len(got) != len(events) {
		t.Fatalf("%d events, want %d", len(got), len(events))
	}
	for i := range got {
		if got[i].Op != events[i].Op || got[i].Enter != events[i].Enter || got[i].Message != events[i].Message {
			t.Errorf("event %d: %+v, want %+v", i, got[i], events[i])
		}
	}
}

func TestJSONLErrors(t *testing.T) {
	const header = `{"format":"predict-trace","version":1,"source":"commlib","np":2,"clock":"monotonic"}`
	for _, tc := range []struct{ input, want string }{
		{"", "t.jsonl: empty file"},
		{`{"format":"other","version":1}`, `t.jsonl:1: format "other"`},
		{`{"format":"predict-trace","version":9}`, "t.jsonl:1: predict-trace version 9"},
		{"not json", "t.jsonl:1: not a predict-trace header"},
		{header + "\n{\"rank\":5,\"kind\":\"op\",\"op\":\"Send\",\"peer\":0,\"root\":-1,\"comm\":0,\"enter\":0,\"exit\":1,\"seq\":1}", "t.jsonl:2: rank 5 outside 0..1"},
		{header + "\n{\"rank\":0,\"kind\":\"op\",\"op\":\"Send\",\"peer\":1,\"root\":-1,\"comm\":0,\"enter\":5,\"exit\":1,\"seq\":1}", "t.jsonl:2: exit 1 before enter 5"},
		{header + "\n{\"rank\":0,\"bogus\":1}", `t.jsonl:2: json: unknown field "bogus"`},
		{"\n\n  \n", "t.jsonl: empty file"},
		{"\n" + header + "\n{\"rank\":2,\"kind\":\"op\",\"peer\":-1,\"root\":-1}", "t.jsonl:3: rank 2 outside 0..1"},
		{`{"format":"predict-trace","version":1,"np":0}`, "t.jsonl:1: np 0: want 1..16777216 ranks"},
		{header + "\n{\"rank\":0,\"kind\":\"op\",\"peer\":-1,\"root\":-1} {}", `t.jsonl:2: "{}" after the JSON object`},
		{header + "\nnull", `t.jsonl:2: want a JSON object, found "null"`},
		{header + "\n{\"rank\":0,\"kind\":\"start\",\"peer\":-1,\"root\":-1}", `t.jsonl:2: kind "start", want "op", "complete", "compute" or "core_wait"`},
		{header + "\n{\"rank\":0,\"kind\":\"op\",\"thread\":-1,\"peer\":-1,\"root\":-1}", "t.jsonl:2: thread -1"},
		{header + "\n{\"rank\":0,\"kind\":\"op\",\"peer\":2,\"root\":-1}", "t.jsonl:2: peer 2 outside -1..1"},
		{header + "\n{\"rank\":0,\"kind\":\"op\",\"peer\":-1,\"root\":-3}", "t.jsonl:2: root -3 outside -1..1"},
		{header + "\n{\"rank\":0,\"kind\":\"op\",\"peer\":-1,\"root\":-1,\"bytes\":-8}", "t.jsonl:2: bytes -8"},
		{header + "\n{\"rank\":0,\"kind\":\"op\",\"peer\":-1,\"root\":-1,\"enter\":-5,\"exit\":1}", "t.jsonl:2: enter -5 before the start"},
		{header + "\n{\"rank\":0,\"kind\":\"op\",\"peer\":-1,\"root\":-1,\"enter\":1e40}", "t.jsonl:2: json: cannot unmarshal number 1e40"},
	} {
		_, _, err := ReadJSONL(strings.NewReader(tc.input), "t.jsonl")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ReadJSONL(%q) = %v, want an error containing %q", tc.input, err, tc.want)
		}
	}
}

func TestTimeString(t *testing.T) {
	for _, tc := range []struct {
		t    Time
		want string
	}{{1500 * Millisecond, "1.5s"}, {2 * Millisecond, "2ms"}, {3 * Microsecond, "3us"}, {250 * Nanosecond, "250ns"}} {
		if got := tc.t.String(); got != tc.want {
			t.Errorf("%d.String() = %q, want %q", int64(tc.t), got, tc.want)
		}
	}
}

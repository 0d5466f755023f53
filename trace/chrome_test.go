package trace

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

type chromeFile struct {
	DisplayTimeUnit string         `json:"displayTimeUnit"`
	OtherData       Header         `json:"otherData"`
	TraceEvents     []chromeRecord `json:"traceEvents"`
}

type chromeRecord struct {
	Ph   string          `json:"ph"`
	Pid  *int            `json:"pid"`
	Tid  *int            `json:"tid"`
	Ts   *json.Number    `json:"ts"`
	Name string          `json:"name"`
	Cat  string          `json:"cat"`
	ID   json.RawMessage `json:"id"`
	ID2  *struct {
		Local string `json:"local"`
	} `json:"id2"`
	Bp   string         `json:"bp"`
	S    string         `json:"s"`
	Args map[string]any `json:"args"`
}

// micros parses a timestamp of the output back to picoseconds, exactly.
func micros(t *testing.T, n *json.Number) Time {
	t.Helper()
	s := n.String()
	whole, frac, _ := strings.Cut(s, ".")
	if len(frac) > 6 {
		t.Fatalf("timestamp %s: more than 6 decimals", s)
	}
	w, err := strconv.ParseInt(whole, 10, 64)
	if err != nil {
		t.Fatalf("timestamp %s: %v", s, err)
	}
	f := int64(0)
	if frac != "" {
		f, err = strconv.ParseInt(frac+strings.Repeat("0", 6-len(frac)), 10, 64)
		if err != nil {
			t.Fatalf("timestamp %s: %v", s, err)
		}
	}
	if strings.HasPrefix(whole, "-") {
		f = -f
	}
	return Time(w*1e6 + f)
}

func decodeChrome(t *testing.T, data []byte) chromeFile {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	dec.DisallowUnknownFields()
	var f chromeFile
	if err := dec.Decode(&f); err != nil {
		t.Fatalf("output is not the expected JSON: %v", err)
	}
	return f
}

// checkChrome validates the structure of a Chrome trace written for
// events: every record has ph, pid and tid, timed records a ts; the begin
// and end events (B, E) of each thread nest, each end repeating its
// begin's name, category and args, and together with the call instants
// (i, not of category request) they match the trace's calls one to one
// (a call that takes no time an instant, the others a slice from enter to
// exit); on each thread these records come in time order, also as
// binary64 numbers, which is how viewers read them; flows are paired,
// start no later than they end and lie inside a call of their thread;
// async requests are paired; every process and thread used is named.
func checkChrome(t *testing.T, f chromeFile, h Header, events []Event) {
	t.Helper()
	type pt struct{ pid, tid int }
	type slice struct{ ts, end Time }
	slices := map[pt][]slice{}
	named := map[pt]bool{}
	procs := map[int]bool{}
	flows := map[string][]chromeRecord{}
	async := map[string][]chromeRecord{}
	open := map[pt][]chromeRecord{} // begun slices not yet ended
	last := map[pt]float64{}        // the last B, E or call instant's ts, as viewers parse it
	calls := map[string]int{}       // the calls written: pid/tid/name/args/enter/exit
	call := func(k pt, name string, args map[string]any, enter, exit Time) string {
		a, _ := json.Marshal(args)
		return fmt.Sprintf("%d/%d/%s/%s/%d/%d", k.pid, k.tid, name, a, enter, exit)
	}
	for _, r := range f.TraceEvents {
		if r.Ph == "" || r.Pid == nil || r.Tid == nil {
			t.Fatalf("record without ph, pid or tid: %+v", r)
		}
		k := pt{*r.Pid, *r.Tid}
		if r.Ph == "M" {
			switch r.Name {
			case "process_name":
				procs[k.pid] = true
			case "thread_name":
				named[k] = true
			}
			continue
		}
		if r.Ts == nil {
			t.Fatalf("%s record without ts: %+v", r.Ph, r)
		}
		ts := micros(t, r.Ts)
		if ts < 0 {
			t.Errorf("negative ts %v", ts)
		}
		if r.Ph == "B" || r.Ph == "E" || r.Ph == "i" && r.Cat != "request" {
			v, err := strconv.ParseFloat(r.Ts.String(), 64)
			if err != nil {
				t.Fatalf("ts %s: %v", r.Ts, err)
			}
			if v < last[k] {
				t.Errorf("pid %d tid %d: %s record at %s after one at %v", k.pid, k.tid, r.Ph, r.Ts, last[k])
			}
			last[k] = v
			if !named[k] || !procs[k.pid] {
				t.Errorf("%s record on unnamed pid %d tid %d", r.Ph, k.pid, k.tid)
			}
		}
		switch r.Ph {
		case "B":
			open[k] = append(open[k], r)
		case "E":
			n := len(open[k])
			if n == 0 {
				t.Fatalf("E record with no open slice: %+v", r)
			}
			b := open[k][n-1]
			open[k] = open[k][:n-1]
			if r.Name != b.Name || r.Cat != b.Cat || !reflect.DeepEqual(r.Args, b.Args) {
				t.Errorf("E record %+v ends B record %+v", r, b)
			}
			enter := micros(t, b.Ts)
			if enter >= ts {
				t.Errorf("slice from %s to %s: calls that take no time are instants", b.Ts, r.Ts)
			}
			slices[k] = append(slices[k], slice{enter, ts})
			calls[call(k, b.Name, b.Args, enter, ts)]++
		case "s", "f":
			if r.Cat != "message" || len(r.ID) == 0 {
				t.Errorf("flow record without category message and id: %+v", r)
			}
			if r.Ph == "f" && r.Bp != "e" {
				t.Errorf("flow end without bp e: %+v", r)
			}
			flows[string(r.ID)] = append(flows[string(r.ID)], r)
		case "b", "e", "n":
			if r.ID2 == nil || r.Cat != "request" {
				t.Fatalf("async record without id2 or category request: %+v", r)
			}
			async[strconv.Itoa(k.pid)+"/"+r.ID2.Local] = append(async[strconv.Itoa(k.pid)+"/"+r.ID2.Local], r)
		case "i":
			if r.S != "t" {
				t.Errorf("instant without thread scope: %+v", r)
			}
			if r.Cat != "request" {
				slices[k] = append(slices[k], slice{ts, ts})
				calls[call(k, r.Name, r.Args, ts, ts)]++
			}
		default:
			t.Errorf("unexpected phase %q", r.Ph)
		}
	}
	for pid := range numRanks(h, events) {
		if !procs[pid] {
			t.Errorf("rank %d has no process_name", pid)
		}
	}

	for k, rs := range open {
		if len(rs) > 0 {
			t.Errorf("pid %d tid %d: %d slices never end", k.pid, k.tid, len(rs))
		}
	}

	// One slice or instant per call or compute fragment.
	for i := range events {
		e := &events[i]
		if e.Kind == KindComplete {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(chromeArgs(e)))
		dec.UseNumber() // as decodeChrome
		var args map[string]any
		if err := dec.Decode(&args); err != nil {
			t.Fatal(err)
		}
		c := call(pt{e.Rank, e.Thread}, eventName(e), args, e.Enter, e.Exit)
		if calls[c] == 0 {
			t.Errorf("no slice or instant for call %s", c)
			continue
		}
		calls[c]--
	}
	for c, n := range calls {
		if n > 0 {
			t.Errorf("slice or instant %s is no call of the trace", c)
		}
	}

	// Flows: one per message whose send and receive are in the trace.
	sends, recvs := map[int64]bool{}, map[int64]bool{}
	for i := range events {
		e := &events[i]
		switch {
		case e.Message == 0:
		case e.Kind == KindOp && e.Protocol != "":
			sends[e.Message] = true
		case e.Kind == KindOp && (e.Op == "Recv" || e.Op == "Sendrecv"), e.Kind == KindComplete && e.Op == "Irecv":
			recvs[e.Message] = true
		}
	}
	wantFlows := 0
	for m := range sends {
		if recvs[m] {
			wantFlows++
		}
	}
	if len(flows) != wantFlows {
		t.Errorf("%d flows, want %d (messages with both ends)", len(flows), wantFlows)
	}
	inside := func(r chromeRecord) bool {
		ts := micros(t, r.Ts)
		for _, s := range slices[pt{*r.Pid, *r.Tid}] {
			if s.ts <= ts && ts <= s.end {
				return true
			}
		}
		return false
	}
	for id, rs := range flows {
		if len(rs) != 2 || rs[0].Ph != "s" || rs[1].Ph != "f" {
			t.Errorf("flow %s: records %+v, want s then f", id, rs)
			continue
		}
		if micros(t, rs[0].Ts) > micros(t, rs[1].Ts) {
			t.Errorf("flow %s ends at %s before it starts at %s", id, rs[1].Ts, rs[0].Ts)
		}
		for _, r := range rs {
			if !inside(r) {
				t.Errorf("flow %s: %s at %s is inside no call of pid %d tid %d", id, r.Ph, r.Ts, *r.Pid, *r.Tid)
			}
		}
	}
	for id, rs := range async {
		switch {
		case len(rs) == 1 && rs[0].Ph == "n":
		case len(rs) == 2 && rs[0].Ph == "b" && rs[1].Ph == "e":
			if micros(t, rs[0].Ts) > micros(t, rs[1].Ts) || rs[0].Name != rs[1].Name {
				t.Errorf("request %s: %+v", id, rs)
			}
		default:
			t.Errorf("request %s: records %+v, want b then e, or n", id, rs)
		}
	}
}

// TestChromeTraces checks the Chrome files of the real and the modeled
// traces of testdata, and that they do not depend on the input's order.
func TestChromeTraces(t *testing.T) {
	traces := map[string]testTrace{}
	for name, tr := range realTraces(t) {
		traces["real/"+name] = tr
	}
	for name, tr := range modeledTraces(t) {
		traces["modeled/"+name] = tr
	}
	for name, tr := range traces {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := WriteChrome(&buf, tr.h, tr.events); err != nil {
				t.Fatal(err)
			}
			f := decodeChrome(t, buf.Bytes())
			if f.DisplayTimeUnit != "ns" || f.OtherData.NP != tr.h.NP || f.OtherData.Format != FormatName {
				t.Errorf("top level: displayTimeUnit %q, otherData %+v", f.DisplayTimeUnit, f.OtherData)
			}
			checkChrome(t, f, tr.h, tr.events)

			// Deterministic, and independent of the order of the input.
			shuffled := append([]Event(nil), tr.events...)
			rand.New(rand.NewPCG(1, 2)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
			var again bytes.Buffer
			if err := WriteChrome(&again, tr.h, shuffled); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(buf.Bytes(), again.Bytes()) {
				t.Error("output depends on the order of the events")
			}
		})
	}
}

// TestChromeRecords pins the records of a small trace: a late sender, an
// Irecv completed by a Wait, a pool thread.
func TestChromeRecords(t *testing.T) {
	send := ev(0, "Send", 10, 12, 1)
	send.Peer, send.Tag, send.Bytes, send.Message, send.Protocol, send.Site = 1, 3, 8, 1, "eager", "a.go:5"
	recv := ev(1, "Recv", 2, 14, 1)
	recv.Peer, recv.Tag, recv.Bytes, recv.Message = 0, 3, 8, 1
	isend := ev(0, "Isend", 20, 21, 2)
	isend.Peer, isend.Bytes, isend.Message, isend.Protocol, isend.Request = 1, 16, 2, "eager", 7
	irecv := ev(1, "Irecv", 15, 16, 2)
	irecv.Peer, irecv.Request = 0, 9
	wait := ev(1, "Wait", 16, 30, 3)
	wait.Request = 9
	done := ev(1, "Irecv", 30, 30, 4)
	done.Kind, done.Peer, done.Bytes, done.Message, done.Request = KindComplete, 0, 16, 2, 9
	lock := ev(1, "Mutex.Lock", 3, 4, 5)
	lock.Thread, lock.Object = 2, 11
	compute := Event{Rank: 0, Kind: KindCompute, Op: "sweep", Peer: NoPeer, Root: NoPeer, Enter: 1500, Exit: 2500, Seq: 3}
	events := []Event{send, recv, isend, irecv, wait, done, lock, compute}

	var buf bytes.Buffer
	if err := WriteChrome(&buf, Header{NP: 2, Source: "interp", Clock: "virtual"}, events); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		`{"ph":"M","pid":1,"tid":2,"name":"thread_name","args":{"name":"thread 1"}}`,
		`{"ph":"B","pid":0,"tid":0,"ts":0.0015,"name":"sweep","cat":"compute","args":{"kind":"compute","seq":3}}`,
		`{"ph":"E","pid":0,"tid":0,"ts":0.0025,"name":"sweep","cat":"compute","args":{"kind":"compute","seq":3}}`,
		`{"ph":"B","pid":1,"tid":0,"ts":0.002,"name":"Recv","cat":"p2p","args":{"peer":0,"tag":3,"bytes":8,"message":1,"seq":1}}`,
		`{"ph":"E","pid":1,"tid":0,"ts":0.014,"name":"Recv","cat":"p2p","args":{"peer":0,"tag":3,"bytes":8,"message":1,"seq":1}}`,
		`{"ph":"B","pid":0,"tid":0,"ts":0.01,"name":"Send","cat":"p2p","args":{"peer":1,"tag":3,"bytes":8,"message":1,"protocol":"eager","site":"a.go:5","seq":1}}`,
		`{"ph":"s","pid":0,"tid":0,"ts":0.011,"name":"message","cat":"message","id":1}`,
		`{"ph":"f","pid":1,"tid":0,"ts":0.013,"name":"message","cat":"message","id":1,"bp":"e"}`,
		`{"ph":"B","pid":1,"tid":2,"ts":0.003,"name":"Mutex.Lock","cat":"thread","args":{"object":11,"seq":5}}`,
		`{"ph":"E","pid":1,"tid":2,"ts":0.004,"name":"Mutex.Lock","cat":"thread","args":{"object":11,"seq":5}}`,
		`{"ph":"b","pid":1,"tid":0,"ts":0.015,"name":"Irecv","cat":"request","id2":{"local":"0x9"},"args":{"peer":0,"tag":0,"request":9,"seq":2}}`,
		`{"ph":"e","pid":1,"tid":0,"ts":0.03,"name":"Irecv","cat":"request","id2":{"local":"0x9"},"args":{"kind":"complete","peer":0,"tag":0,"bytes":16,"request":9,"message":2,"seq":4}}`,
		// The Irecv's message enters the Wait that completed it, 1 ns before its exit.
		`{"ph":"f","pid":1,"tid":0,"ts":0.029,"name":"message","cat":"message","id":2,"bp":"e"}`,
		// The Isend's request never completes in this trace: an async instant.
		`{"ph":"n","pid":0,"tid":0,"ts":0.02,"name":"Isend","cat":"request","id2":{"local":"0x7"}`,
		`{"ph":"s","pid":0,"tid":0,"ts":0.02,"name":"message","cat":"message","id":2}`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks\n%s\nin\n%s", want, out)
		}
	}
	checkChrome(t, decodeChrome(t, buf.Bytes()), Header{NP: 2}, events)
}

// TestChromeThreadOrder pins the order of one thread's records where
// viewers need it: slices that abut at times binary64 cannot hold, calls
// that take no time at the time others start and end, and slices that
// nest.
func TestChromeThreadOrder(t *testing.T) {
	at := func(op string, enter, exit Time, seq int64) Event {
		return Event{Kind: KindOp, Op: op, Peer: NoPeer, Root: NoPeer, Enter: enter, Exit: exit, Seq: seq}
	}
	events := []Event{
		at("A", 40000026036, 40000704733, 1),
		at("B", 40000704733, 40002094685, 2), // 40000.026036 + 0.678697 is 40000.704733000006 in binary64
		at("Z", 40002094685, 40002094685, 3), // no time, where B ends and C starts
		at("Z", 40002094685, 40002094685, 4),
		at("C", 40002094685, 40002100000, 5),
		at("Outer", 40002100000, 40002200000, 6),
		at("Z", 40002100000, 40002100000, 7), // no time, at the start of Outer
		at("Inner", 40002100000, 40002200000, 8),
	}
	var buf bytes.Buffer
	if err := WriteChrome(&buf, Header{NP: 1}, events); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range decodeChrome(t, buf.Bytes()).TraceEvents {
		if r.Ph != "M" {
			got = append(got, r.Ph+" "+r.Name+" "+r.Ts.String())
		}
	}
	want := []string{
		"B A 40000.026036", "E A 40000.704733",
		"B B 40000.704733", "E B 40002.094685",
		"i Z 40002.094685", "i Z 40002.094685",
		"B C 40002.094685", "E C 40002.1",
		"B Outer 40002.1", "i Z 40002.1", "B Inner 40002.1", "E Inner 40002.2", "E Outer 40002.2",
	}
	if !slices.Equal(got, want) {
		t.Errorf("records\n\t%q\nwant\n\t%q", got, want)
	}
	checkChrome(t, decodeChrome(t, buf.Bytes()), Header{NP: 1}, events)
}

func TestAppendMicros(t *testing.T) {
	for _, tc := range []struct {
		t    Time
		want string
	}{
		{0, "0"}, {1, "0.000001"}, {1000, "0.001"}, {1234567, "1.234567"}, {1000000, "1"},
		{1500000, "1.5"}, {-1, "-0.000001"}, {-2500000, "-2.5"}, {9223372036854775807, "9223372036854.775807"},
		{-9223372036854775808, "-9223372036854.775808"},
	} {
		if got := string(appendMicros(nil, tc.t)); got != tc.want {
			t.Errorf("appendMicros(%d) = %s, want %s", int64(tc.t), got, tc.want)
		}
	}
}

func TestAppendJSONString(t *testing.T) {
	for _, s := range []string{"plain", `q"uote\`, "tab\tnl\ncr\r", "\x00\x1f<>&", "é€😀", "bad\xffutf8", "\u2028\u2029"} {
		got := appendJSONString(nil, s)
		var back string
		if err := json.Unmarshal(got, &back); err != nil {
			t.Errorf("appendJSONString(%q) = %s: not JSON: %v", s, got, err)
			continue
		}
		want, _ := json.Marshal(s)
		if string(got) != string(want) {
			t.Errorf("appendJSONString(%q) = %s, encoding/json gives %s", s, got, want)
		}
	}
}

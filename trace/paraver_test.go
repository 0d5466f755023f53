package trace

import (
	"bufio"
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// smallTrace has a blocking message, a nonblocking one (Isend shorter
// than 1 ns, Irecv completed by a Wait) and a pool thread.
func smallTrace() (Header, []Event) {
	send := ev(0, "Send", 1000, 3000, 1)
	send.Peer, send.Tag, send.Bytes, send.Message, send.Protocol, send.Site = 1, 5, 8, 1, "eager", "a.go:1"
	recv := ev(1, "Recv", 500, 4000, 1)
	recv.Peer, recv.Tag, recv.Bytes, recv.Message, recv.Site = 0, 5, 8, 1, "a.go:2"
	lock := ev(1, "Mutex.Lock", 2000, 2500, 2)
	lock.Thread, lock.Object = 1, 7
	isend := ev(0, "Isend", 5000, 5000, 2)
	isend.Exit += 400
	isend.Peer, isend.Message, isend.Request, isend.Protocol = 1, 2, 3, "eager"
	irecv := ev(1, "Irecv", 4500, 4600, 3)
	irecv.Peer, irecv.Request = 0, 4
	wait := ev(1, "Wait", 4600, 7000, 4)
	wait.Request = 4
	done := ev(1, "Irecv", 7000, 7000, 5)
	done.Kind, done.Peer, done.Request, done.Message = KindComplete, 0, 4, 2
	return Header{NP: 2, Source: "interp", Clock: "virtual"}, []Event{send, recv, lock, isend, irecv, wait, done}
}

func writeParaver(t *testing.T, h Header, events []Event) (prv, pcf, row string) {
	t.Helper()
	var a, b, c bytes.Buffer
	if err := WriteParaver(&a, &b, &c, h, events); err != nil {
		t.Fatal(err)
	}
	return a.String(), b.String(), c.String()
}

func TestParaverRecords(t *testing.T) {
	h, events := smallTrace()
	prv, pcf, row := writeParaver(t, h, events)
	want := []string{
		"#Paraver (01/01/70 at 00:00):7000_ns:2(1,2):1:2(1:1,2:2)",
		// state: cpu appl task thread begin end state
		"1:1:1:1:1:0:1000:1",
		"1:2:1:2:1:0:500:1",
		"1:2:1:2:1:500:4000:3",
		// event: cpu appl task thread time (type value)...
		"2:2:1:2:1:500:90000001:5:90000002:2:90000003:1:90000004:5:90000005:8:90000009:1",
		"1:1:1:1:1:1000:3000:4",
		"2:1:1:1:1:1000:90000001:1:90000002:1:90000003:2:90000004:5:90000005:8:90000009:1:90000010:1",
		// communication: sender lsend psend, receiver lrecv precv, size, tag
		"3:1:1:1:1:1000:1000:2:1:2:1:500:4000:8:5",
		"1:3:1:2:2:2000:2500:5",
		"2:3:1:2:2:2000:90000001:39:90000011:7",
		"2:3:1:2:2:2500:90000001:0",
		"1:1:1:1:1:3000:5000:1",
		"2:1:1:1:1:3000:90000001:0:90000002:0",
		"1:2:1:2:1:4000:4500:1",
		"2:2:1:2:1:4000:90000001:0:90000002:0",
		"1:2:1:2:1:4500:4600:11",
		"2:2:1:2:1:4500:90000001:11:90000003:1:90000004:0:90000007:4",
		"1:2:1:2:1:4600:7000:8",
		"2:2:1:2:1:4600:90000001:0",
		"2:2:1:2:1:4600:90000001:12:90000007:4",
		// the Isend is shorter than 1 ns: no state, its enter and exit in order
		"2:1:1:1:1:5000:90000001:7:90000003:2:90000004:0:90000007:3:90000009:2:90000010:1",
		"2:1:1:1:1:5000:90000001:0",
		// the Irecv's message: posted at the Irecv, received at the completion
		"3:1:1:1:1:5000:5000:2:1:2:1:4500:7000:0:0",
		"2:2:1:2:1:7000:90000001:0:90000012:4",
	}
	got := strings.Split(strings.TrimSuffix(prv, "\n"), "\n")
	for i := range max(len(got), len(want)) {
		var g, w string
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			t.Errorf("line %d:\n got %s\nwant %s", i+1, g, w)
		}
	}
	for _, s := range []string{
		"STATES\n0    Idle\n1    Running\n", "16    Send Receive\n", "STATES_COLOR\n0    {117,195,255}\n",
		"EVENT_TYPE\n0    90000001    Operation\nVALUES\n0      End\n1      Send\n", "39      Mutex.Lock\n",
		"EVENT_TYPE\n0    90000002    Call site\nVALUES\n0      End\n1      a.go:1\n2      a.go:2\n",
		"EVENT_TYPE\n0    90000010    Send protocol\nVALUES\n1      eager\n", "0    90000012    Request completed\n",
	} {
		if !strings.Contains(pcf, s) {
			t.Errorf(".pcf lacks %q", s)
		}
	}
	wantRow := "LEVEL CPU SIZE 3\nrank 0 main\nrank 1 main\nrank 1 thread 0\n\nLEVEL NODE SIZE 2\nrank 0\nrank 1\n\n" +
		"LEVEL APPL SIZE 1\ninterp\n\nLEVEL TASK SIZE 2\nrank 0\nrank 1\n\nLEVEL THREAD SIZE 3\nrank 0 main\nrank 1 main\nrank 1 thread 0\n"
	if row != wantRow {
		t.Errorf(".row:\n%s\nwant\n%s", row, wantRow)
	}
}

var prvHeader = regexp.MustCompile(`^#Paraver \((\d\d/\d\d/\d\d at \d\d:\d\d)\):(\d+)_ns:(\d+)\(([\d,]+)\):1:(\d+)\(([\d:,]+)\)$`)

// TestParaverRealTraces checks the files of real traces record by record
// and field by field against the trace and the header's resource model.
func TestParaverRealTraces(t *testing.T) {
	for name, tr := range realTraces(t) {
		t.Run(name, func(t *testing.T) {
			prv, pcf, row := writeParaver(t, tr.h, tr.events)
			sc := bufio.NewScanner(strings.NewReader(prv))
			sc.Scan()
			m := prvHeader.FindStringSubmatch(sc.Text())
			if m == nil {
				t.Fatalf("header %q", sc.Text())
			}
			if m[1] != paraverDate(tr.h) {
				t.Errorf("date %s, want %s", m[1], paraverDate(tr.h))
			}
			end, _ := strconv.ParseInt(m[2], 10, 64)
			np, _ := strconv.Atoi(m[3])
			if np != tr.h.NP || m[5] != m[3] {
				t.Errorf("header %q: want %d nodes and tasks", sc.Text(), tr.h.NP)
			}
			// CPU numbering: the threads of each task, task after task.
			type obj struct{ task, thread int }
			cpuOf := map[obj]int{}
			cpus := 0
			for task, spec := range strings.Split(m[6], ",") {
				threads, node, _ := strings.Cut(spec, ":")
				nt, _ := strconv.Atoi(threads)
				if node != strconv.Itoa(task+1) {
					t.Errorf("task %d on node %s", task+1, node)
				}
				for th := 1; th <= nt; th++ {
					cpus++
					cpuOf[obj{task + 1, th}] = cpus
				}
			}
			if !strings.HasPrefix(row, "LEVEL CPU SIZE "+strconv.Itoa(cpus)+"\n") {
				t.Errorf(".row does not start with the %d CPUs", cpus)
			}
			declared := map[int64]bool{}
			for _, typ := range regexp.MustCompile(`(?m)^0    (\d+)    `).FindAllStringSubmatch(pcf, -1) {
				v, _ := strconv.ParseInt(typ[1], 10, 64)
				declared[v] = true
			}
			field := func(s string) int64 {
				v, err := strconv.ParseInt(s, 10, 64)
				if err != nil || v < 0 {
					t.Fatalf("field %q: want a number ≥ 0", s)
				}
				return v
			}
			checkObject := func(f []string) {
				cpu, appl, task, thread := field(f[0]), field(f[1]), field(f[2]), field(f[3])
				if appl != 1 || cpuOf[obj{int(task), int(thread)}] != int(cpu) || cpu == 0 {
					t.Errorf("object %v: cpu %d does not run task %d thread %d", f[:4], cpu, task, thread)
				}
			}
			var last int64
			lastState := map[int64]int64{}
			comms := 0
			for sc.Scan() {
				f := strings.Split(sc.Text(), ":")
				if len(f) < 2 {
					t.Fatalf("record %q", sc.Text())
				}
				kind := f[0]
				f = f[1:]
				var at int64
				switch kind {
				case "1":
					if len(f) != 7 {
						t.Fatalf("state %q: want 7 fields", sc.Text())
					}
					checkObject(f)
					begin, stop, state := field(f[4]), field(f[5]), field(f[6])
					if begin >= stop || stop > end || state >= int64(len(prvStates)) {
						t.Errorf("state %q: begin %d end %d (trace end %d), state %d", sc.Text(), begin, stop, end, state)
					}
					if begin < lastState[field(f[0])] {
						t.Errorf("state %q overlaps the one before on its CPU", sc.Text())
					}
					lastState[field(f[0])] = stop
					at = begin
				case "2":
					if len(f) < 7 || len(f)%2 != 1 {
						t.Fatalf("event %q: want type:value pairs", sc.Text())
					}
					checkObject(f)
					at = field(f[4])
					for j := 5; j < len(f); j += 2 {
						if !declared[field(f[j])] {
							t.Errorf("event %q: type %s not in the .pcf", sc.Text(), f[j])
						}
						field(f[j+1])
					}
				case "3":
					if len(f) != 14 {
						t.Fatalf("communication %q: want 14 fields", sc.Text())
					}
					comms++
					checkObject(f[0:4])
					checkObject(f[6:10])
					lsend, psend, lrecv, precv := field(f[4]), field(f[5]), field(f[10]), field(f[11])
					if lsend > psend || lrecv > precv || psend > precv || precv > end {
						t.Errorf("communication %q: times out of order", sc.Text())
					}
					field(f[12])
					field(f[13])
					at = lsend
				default:
					t.Fatalf("record %q: unknown type", sc.Text())
				}
				if at < last {
					t.Errorf("record %q before the one above it", sc.Text())
				}
				last = at
			}
			wantComms := 0
			x := newIndex(tr.events)
			for id := range x.msgs {
				if _, _, ok := x.message(id); ok {
					wantComms++
				}
			}
			if comms != wantComms {
				t.Errorf("%d communications, want %d", comms, wantComms)
			}
		})
	}
}

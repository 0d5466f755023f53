package machine

import (
	"testing"

	"github.com/predict-tools/predict/trace"
)

func TestNICQueues(t *testing.T) {
	m := testMachine()
	if q := m.NewNICQueues(4); q != nil || q.Deliver(0, 1, 10, 100, 50) != 50 {
		t.Fatalf("no contention: want a nil queue that changes nothing")
	}
	m.NIC = NIC{Contention: true, Injection: NanosecondPerByte, Ejection: 2 * NanosecondPerByte}
	q := m.NewNICQueues(3)
	const us = trace.Microsecond
	// Message 1: 1000 B from node 0 at 0, idle arrival 5 µs. The ports are
	// free: it arrives at 5 µs; injection busy until 1 µs, ejection at node
	// 1 until 5 µs.
	if got := q.Deliver(0, 1, 0, 1000, 5*us); got != 5*us {
		t.Errorf("message 1 arrives at %d, want 5us", got)
	}
	// Message 2: same size, node 0 → node 2, at 0.5 µs, idle arrival 5.5
	// µs. It waits 0.5 µs for node 0's injection port: 6 µs.
	if got := q.Deliver(0, 2, us/2, 1000, 5*us+us/2); got != 6*us {
		t.Errorf("message 2 arrives at %d, want 6us", got)
	}
	// Message 3: node 2 → node 1 at 1 µs, idle arrival 4 µs. Node 1's
	// ejection port is free at 5 µs; the 2 µs of ejection end at 7 µs.
	if got := q.Deliver(2, 1, us, 1000, 4*us); got != 7*us {
		t.Errorf("message 3 arrives at %d, want 7us", got)
	}
	// Zero rates mean the inter-node G.
	m.NIC = NIC{Contention: true}
	q = m.NewNICQueues(2)
	q.Deliver(0, 1, 0, 1001, 0)
	// The second message waits 1001 × 6 ns for the injection port.
	if got := q.Deliver(0, 1, 0, 1, 100*us); got != 106006*trace.Nanosecond {
		t.Errorf("link-rate injection: arrival %d, want 106us", got)
	}
}

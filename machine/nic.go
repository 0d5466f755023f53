// This file defines NIC contention: per-node injection and ejection ports
// that serialize inter-node messages.

package machine

import "github.com/predict-tools/predict/trace"

// NICQueues is the state of NIC contention during one interpretation: when
// the injection and the ejection port of each node are next free. The
// interpreter owns one per run, creates it with [Machine.NewNICQueues], and
// passes every inter-node message through [NICQueues.Deliver] in the order
// of its send times (the order in which it advances clocks), which keeps
// the result deterministic.
type NICQueues struct {
	injection, ejection PerByte
	injectFree          []trace.Time // node → time its injection port is free
	ejectFree           []trace.Time // node → time its ejection port is free
}

// NewNICQueues returns the NIC state for a job on nodes nodes, or nil when
// m has no NIC contention ((*NICQueues)(nil).Deliver changes nothing).
func (m *Machine) NewNICQueues(nodes int) *NICQueues {
	if !m.NIC.Contention {
		return nil
	}
	q := &NICQueues{
		injection:  m.NIC.Injection,
		ejection:   m.NIC.Ejection,
		injectFree: make([]trace.Time, nodes),
		ejectFree:  make([]trace.Time, nodes),
	}
	if q.injection == 0 {
		q.injection = m.Inter.GapPerByte
	}
	if q.ejection == 0 {
		q.ejection = m.Inter.GapPerByte
	}
	return q
}

// Deliver applies contention to an inter-node message of s bytes from node
// src to node dst whose send started at start and which would arrive, on
// an idle network, at arrival (start + Link.Transfer(s)). It returns the
// contended arrival time and marks the ports busy:
//
//  1. Injection: the message enters src's port at inject = max(start,
//     port free); the port is then busy until inject + s·Injection, and the
//     message is late by inject − start: arrival' = arrival + (inject − start).
//  2. Ejection: its bytes leave dst's port during the s·Ejection before it
//     arrives, and not before the port is free: it arrives at
//     max(arrival', port free + s·Ejection), when the port becomes free.
//
// Messages within a node never pass through a NIC; do not deliver them.
// Port times that do not fit the clock saturate at [Overflow], and so does
// every message queued behind them.
func (q *NICQueues) Deliver(src, dst int, start trace.Time, s int64, arrival trace.Time) trace.Time {
	if q == nil {
		return arrival
	}
	s = max(s, 0)
	inject := max(start, q.injectFree[src])
	q.injectFree[src] = AddTime(inject, q.injection.Times(s))
	arrival = AddTime(arrival, subTime(inject, start))
	arrival = max(arrival, AddTime(q.ejectFree[dst], q.ejection.Times(s)))
	q.ejectFree[dst] = arrival
	return arrival
}

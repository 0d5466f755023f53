// This file defines the point-to-point patterns with Scalasca's semantics:
// Late Sender (with its Wrong Order part) and Late Receiver.

package patterns

import (
	"cmp"
	"slices"

	"github.com/predict-tools/predict/trace"
)

// wrongOrderWindow is how many Late Sender instances a receiving thread
// keeps for reclassification (Scalasca keeps 100).
const wrongOrderWindow = 100

// receiveCall is a call that completes receives, with their messages' sends.
type receiveCall struct {
	call  *trace.Event
	sends []*trace.Event // in the order of the completions
}

// receiveCalls returns the receive-completing calls of thread k in order:
// Recv, the receive half of Sendrecv, and Wait, Waitall, Waitany completing
// Irecvs (Test is ignored, as in Scalasca).
func (x *index) receiveCalls(k threadKey) []receiveCall {
	var calls []receiveCall
	for _, e := range x.threads[k] {
		if e.Kind != trace.KindOp {
			continue
		}
		var msgs []*trace.Event // receive events
		switch {
		case e.Op == "Recv" || e.Op == "Sendrecv" && !isSend(e):
			if e.Message != 0 {
				msgs = append(msgs, e)
			}
		case waitOps[e.Op] && e.Op != "Test":
			for _, c := range x.completed[e] {
				if c.Message != 0 && !isSendOpName(c.Op) {
					msgs = append(msgs, c)
				}
			}
		}
		if len(msgs) == 0 {
			continue
		}
		rc := receiveCall{call: e}
		for _, r := range msgs {
			s := x.sends[r.Message]
			if s == nil {
				x.warnf(r, "message %d has no send in the trace; ignored", r.Message)
				continue
			}
			rc.sends = append(rc.sends, s)
		}
		if len(rc.sends) > 0 {
			calls = append(calls, rc)
		}
	}
	return calls
}

// lateSenderInstance is a pending Late Sender instance.
type lateSenderInstance struct {
	call *trace.Event
	send *trace.Event // the latest sender's call
	lost trace.Time
}

// lateSender finds Late Sender, Late Sender at Wait and Wrong Order.
func (x *index) lateSender(c *collector) {
	for _, k := range sortedKeys(x.threads, compareThreadKeys) {
		var window []lateSenderInstance
		report := func(p lateSenderInstance) {
			pattern := "LateSender"
			if waitOps[p.call.Op] {
				pattern = "LateSenderAtWait"
			}
			c.add(instance{pattern: pattern, vocabulary: Scalasca, at: p.call, lost: p.lost, culprit: p.send})
		}
		for _, rc := range x.receiveCalls(k) {
			// Reclassify the pending instances whose late message was sent
			// after a message this later call receives.
			kept := window[:0]
			for _, p := range window {
				var earlier *trace.Event
				for _, s := range rc.sends {
					if s.Enter < p.send.Enter {
						earlier = s
						break
					}
				}
				if earlier == nil {
					kept = append(kept, p)
					continue
				}
				detail := "different sources"
				if earlier.Rank == p.send.Rank {
					detail = "same source"
				}
				c.add(instance{pattern: "WrongOrder", vocabulary: Scalasca, at: p.call, lost: p.lost, detail: detail,
					culprit: p.send})
			}
			window = kept
			// This call's own instance: the latest sender counts.
			var inst lateSenderInstance
			for _, s := range rc.sends {
				lost := min(s.Enter, rc.call.Exit) - rc.call.Enter
				if lost > inst.lost {
					inst = lateSenderInstance{call: rc.call, send: s, lost: lost}
				}
			}
			if inst.lost <= 0 {
				continue
			}
			if len(window) == wrongOrderWindow {
				report(window[0])
				window = window[1:]
			}
			window = append(window, inst)
		}
		for _, p := range window {
			report(p)
		}
	}
}

// lateReceiver finds Late Receiver and Late Receiver at Wait: sends that
// cannot complete before their receive is posted, completed after it was
// posted late.
func (x *index) lateReceiver(c *collector, eagerLimit int64) {
	type worst struct {
		lost trace.Time
		post *trace.Event
	}
	byCall := make(map[*trace.Event]*worst)
	for _, m := range sortedKeys(x.sends, cmp.Compare) {
		s := x.sends[m]
		if !blocksSender(protocol(s, eagerLimit)) {
			continue
		}
		done := x.sendCompletion(s)
		r := x.recvs[m]
		if done == nil || done.Op == "Test" || r == nil {
			continue
		}
		post := x.receivePost(r)
		if post == nil {
			continue
		}
		var lost trace.Time
		if done.Exit > post.Enter {
			lost = clip(post.Enter-done.Enter, done.Exit-done.Enter)
		}
		w := byCall[done]
		if w == nil {
			w = &worst{lost: -1}
			byCall[done] = w
		}
		if lost > w.lost {
			w.lost, w.post = lost, post
		}
	}
	calls := make([]*trace.Event, 0, len(byCall))
	for call := range byCall {
		calls = append(calls, call)
	}
	slices.SortFunc(calls, compareEvents)
	for _, call := range calls {
		pattern := "LateReceiver"
		if waitOps[call.Op] {
			pattern = "LateReceiverAtWait"
		}
		w := byCall[call]
		c.add(instance{pattern: pattern, vocabulary: Scalasca, at: call, lost: w.lost, culprit: w.post})
	}
}

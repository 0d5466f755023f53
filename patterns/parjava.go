// This file defines ParJava's point-to-point catalog (seed-003 §5): early
// and late sends by mode, waits of nonblocking pairs with the optimal
// distance, wrong message order, and the Sendrecv suggestion.

package patterns

import (
	"cmp"
	"slices"

	"github.com/predict-tools/predict/trace"
)

// sendMode names the mode of a send call in ParJava's terms.
func sendMode(op string) string {
	switch op {
	case "Bsend", "Ibsend":
		return "Buffered"
	case "Ssend", "Issend":
		return "Synchronous"
	case "Rsend", "Irsend":
		return "Ready"
	}
	return "Standard"
}

// parJavaMessages classifies every matched message (§5.3.1 and §5.3.3).
//
// Receiver side: a blocking receive entered before the send is a late send
// of the send's mode ("LateStandardSend", ...; Δ = Enter(send) −
// Enter(Recv)); a receive completed by a Wait is WaitAtReceiver (Δ = the
// Wait's duration) with the optimal distance of the Wait from its Irecv.
// Sender side: a blocking send entered before the receive idles when it
// cannot complete alone ("EarlySynchronousSend", and "EarlyStandardSend" or
// "EarlyReadySend" only when not eager; never a buffered one; Δ = Enter(recv)
// − Enter(send)); a nonblocking send completed by a Wait is WaitAtSender
// (never for Ibsend, which is local). Each Δ is clipped to the idle call.
// A Wait completing several requests counts once, for its largest O_D.
func (x *index) parJavaMessages(c *collector, opts Options) {
	type waitInst struct {
		pattern, detail   string
		culprit           *trace.Event
		optimal, distance trace.Time
	}
	waits := make(map[*trace.Event]*waitInst)
	noteWait := func(w *trace.Event, in waitInst) {
		if old := waits[w]; old == nil || in.optimal > old.optimal {
			waits[w] = &in
		}
	}
	for _, m := range sortedKeys(x.sends, cmp.Compare[int64]) {
		s, r := x.sends[m], x.recvs[m]
		if r == nil {
			continue
		}
		post := x.receivePost(r)
		recvDone := x.receiveCompletion(r)
		if post == nil {
			continue
		}
		mode := sendMode(s.Op)
		pair := "{" + s.Op + ", " + post.Op + "}"
		tsend := opts.transfer(s.Bytes)

		// Receiver side.
		switch {
		case r.Kind != trace.KindComplete: // Recv or Sendrecv
			if d := s.Enter - r.Enter; d > 0 {
				c.add(instance{pattern: "Late" + mode + "Send", vocabulary: ParJava, at: r,
					lost: clip(d, r.Duration()), culprit: s, detail: pair})
			}
		case recvDone != nil && recvDone.Op != "Test":
			// O_D for the Irecv: ΔT_i + T_send after it, plus the gap when
			// the send starts later.
			od := post.Duration() + tsend
			if s.Enter > post.Enter {
				od += s.Enter - post.Enter
			}
			noteWait(recvDone, waitInst{pattern: "WaitAtReceiver", detail: pair, culprit: s, optimal: od,
				distance: recvDone.Enter - post.Enter})
		}

		// Sender side.
		proto := protocol(s, opts.EagerLimit)
		switch {
		case !nonblockingSends[s.Op]: // blocking send or Sendrecv
			if s.Op == "Sendrecv" || mode == "Buffered" || !blocksSender(proto) {
				break
			}
			if d := post.Enter - s.Enter; d > 0 {
				c.add(instance{pattern: "Early" + mode + "Send", vocabulary: ParJava, at: s,
					lost: clip(d, s.Duration()), culprit: post, detail: pair})
			}
		case mode != "Buffered":
			w := x.sendCompletion(s)
			if w == nil || w.Op == "Test" {
				break
			}
			od := s.Duration() + tsend
			if post.Enter > s.Enter {
				od += post.Enter - s.Enter
			}
			noteWait(w, waitInst{pattern: "WaitAtSender", detail: pair, culprit: post, optimal: od,
				distance: w.Enter - s.Enter})
		}
	}
	calls := make([]*trace.Event, 0, len(waits))
	for w := range waits {
		calls = append(calls, w)
	}
	slices.SortFunc(calls, compareEvents)
	for _, w := range calls {
		in := waits[w]
		c.add(instance{pattern: in.pattern, vocabulary: ParJava, at: w, lost: w.Duration(), detail: in.detail,
			culprit: in.culprit, optimal: in.optimal, distance: in.distance})
	}
}

// wrongMessageOrder finds ParJava's wrong message order (§5.3.2): on one
// sender, receiver and communicator, message l sent after message k but
// whose receive is posted before k's, with local sends (Bsend, or eager
// standard sends: with blocking ones the program would deadlock instead).
// A diagnostic at the receive of l.
func (x *index) wrongMessageOrder(c *collector, eagerLimit int64) {
	type pairKey struct{ src, dst, comm int }
	type msg struct{ send, post *trace.Event }
	pair := func(m *msg) string { return "{" + m.send.Op + ", " + m.post.Op + "}" }
	groups := make(map[pairKey][]msg)
	for _, m := range sortedKeys(x.sends, cmp.Compare[int64]) {
		s, r := x.sends[m], x.recvs[m]
		if r == nil {
			continue
		}
		if p := protocol(s, eagerLimit); p != "eager" && p != "buffered" {
			continue
		}
		post := x.receivePost(r)
		if post == nil {
			continue
		}
		k := pairKey{s.Rank, r.Rank, s.Comm}
		groups[k] = append(groups[k], msg{s, post})
	}
	keys := sortedKeys(groups, func(a, b pairKey) int {
		return cmp.Or(cmp.Compare(a.src, b.src), cmp.Compare(a.dst, b.dst), cmp.Compare(a.comm, b.comm))
	})
	for _, k := range keys {
		ms := groups[k]
		slices.SortStableFunc(ms, func(a, b msg) int { return compareEvents(a.send, b.send) })
		var latest *msg // the sent-earlier message whose receive is posted last
		for i := range ms {
			m := &ms[i]
			if latest != nil && compareEvents(latest.post, m.post) > 0 {
				c.add(instance{pattern: "WrongMessageOrder", vocabulary: ParJava, at: m.post, diagnostic: true,
					culprit: latest.send, detail: pair(m)})
			}
			if latest == nil || compareEvents(m.post, latest.post) > 0 {
				latest = m
			}
		}
	}
}

// sendRecvPairs finds a blocking send closely followed by a Recv from the
// same peer on the same thread (§5.3.4): Enter(Recv) − Exit(send) < Δ_SR,
// with no other call in between.
func (x *index) sendRecvPairs(c *collector, gap trace.Time) {
	for _, k := range sortedKeys(x.threads, compareThreadKeys) {
		var prev *trace.Event
		for _, e := range x.threads[k] {
			if e.Kind != trace.KindOp {
				continue
			}
			if prev != nil && blockingSends[prev.Op] && e.Op == "Recv" && e.Peer == prev.Peer && e.Comm == prev.Comm &&
				e.Peer != trace.NoPeer {
				if d := e.Enter - prev.Exit; d >= 0 && d < gap {
					c.add(instance{pattern: "SendRecvPair", vocabulary: ParJava, at: e, diagnostic: true, culprit: prev,
						distance: d})
				}
			}
			prev = e
		}
	}
}

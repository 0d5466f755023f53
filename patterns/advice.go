// This file defines the advice text of each pattern.

package patterns

import (
	"fmt"
	"path/filepath"
	"strings"
)

// advice returns what to do about f, naming its culprit where it has one.
func advice(f *Finding) string {
	who, whoThread := "another rank", "another thread"
	if c := f.Culprit; c != nil {
		who = fmt.Sprintf("rank %d", c.Rank)
		whoThread = fmt.Sprintf("thread %d", c.Thread)
		if c.Site != "" {
			who += fmt.Sprintf(" (%s at %s)", c.Op, shortSite(c.Site))
			whoThread += fmt.Sprintf(" (%s at %s)", c.Op, shortSite(c.Site))
		}
	}
	distance := func() string {
		return fmt.Sprintf("; it should come at least %v after its nonblocking call (O_D), it comes %v after",
			f.OptimalDistance, f.Distance)
	}
	switch f.Pattern {
	case "LateSender":
		return "the receive waits for the send of " + who + ": send earlier (balance the work before the send), " +
			"or post the receive with Irecv and wait after independent work"
	case "LateSenderAtWait":
		return "the Wait blocks until " + who + " sends: do more independent work before the Wait, or make the sender send earlier"
	case "WrongOrder":
		if f.Detail == "same source" {
			return "this receive waited for a message of " + who + " sent after another one from it that was already there: " +
				"receive in the order of the sends (or with AnyTag)"
		}
		return "this receive waited for a message of " + who + " while a message sent earlier by another rank was " +
			"already there: receive in the order of the sends, or with AnySource/Waitany"
	case "LateReceiver":
		return "the send cannot complete before " + who + " posts its receive: post the receive earlier (Irecv), or send " +
			"with Isend/Bsend and wait later (a synchronous or above-eager-limit send blocks)"
	case "LateReceiverAtWait":
		return "the Wait of the send blocks until " + who + " posts its receive: post it earlier, or wait later"
	case "SendRecvPair":
		send := "a send"
		if c := f.Culprit; c != nil && c.Site != "" {
			send = fmt.Sprintf("the %s at %s", c.Op, shortSite(c.Site))
		}
		return fmt.Sprintf("%s is followed %v later (at most) by this receive from the same peer: if the buffers are "+
			"independent, merge both into one Sendrecv (the network is full duplex)", send, f.Distance)
	case "WaitAtBarrier":
		return "waits for the last rank to reach the barrier, " + who + ": balance the work before it, or drop the barrier"
	case "BarrierCompletion", "NxNCompletion":
		return "time in the call after the first rank left it: runtime or operating-system noise"
	case "WaitAtNxN":
		return "the n-to-n collective waits for the last rank to enter, " + who + ": balance the work before it"
	case "LateBroadcast":
		return "waits for the root, " + who + ", which enters the one-to-n collective late: move work off the root " +
			"before it, or do independent work before entering"
	case "EarlyReduce":
		return "the root waits for the last contribution, " + who + ": do independent work before the n-to-1 " +
			"collective on the root, or balance the senders' work"
	case "EarlyScan":
		return "waits for a lower rank to enter the scan, " + who + ": balance the work of the lower ranks before it"
	case "LockContention":
		return "waits while " + whoThread + " holds the lock: shorten the critical section, split the lock, or use atomics"
	case "WaitAtThreadBarrier":
		return "waits for the last thread to reach the barrier, " + whoThread + ": balance the threads' work"
	case "WaitAtSender":
		return "the Wait of the nonblocking send blocks until " + who + " posts the receive" + distance()
	case "WaitAtReceiver":
		return "the Wait of the Irecv blocks until " + who + " sends" + distance()
	case "WrongMessageOrder":
		return "this receive is posted before the receive of a message sent earlier by " + who + ": reorder the sends " +
			"or the receives"
	case "WaitInsideCollective":
		return "the root is alone inside the rooted collective: the other ranks enter late or leave early"
	}
	if strings.HasPrefix(f.Pattern, "Late") && strings.HasSuffix(f.Pattern, "Send") {
		return "the receive is entered before the send of " + who + ": the sender is late"
	}
	if strings.HasPrefix(f.Pattern, "Early") && strings.HasSuffix(f.Pattern, "Send") {
		return "the send cannot complete before " + who + " enters the receive: the receiver is late"
	}
	return ""
}

// shortSite shortens an absolute file:line to its last two path elements,
// for advice text (the full site is in the finding).
func shortSite(site string) string {
	if !filepath.IsAbs(site) {
		return site
	}
	dir, file := filepath.Split(site)
	return filepath.Join(filepath.Base(dir), file)
}

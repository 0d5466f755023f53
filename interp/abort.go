// This file defines how a modeled run ends the way the program itself
// ends a run: Comm.Abort, panic, os.Exit and log.Fatal reached on a path
// the model computes (a check of the program on control values).

package interp

import (
	"fmt"
	"slices"
	"strings"

	"golang.org/x/tools/go/ssa"
)

// AbortError is a run that the program ends itself: at this np, with
// these arguments, the real run fails there too. The CLI reports it per
// np instead of a time.
type AbortError struct {
	Rank   int    // world rank; -1 before commlib.Main
	Thread int    // 0: the rank's main thread, else thread+1
	Site   string // file:line of the call that ends the run
	// How is what ends it: "Comm.Abort", "panic", "os.Exit" or
	// "log.Fatal", "log.Fatalf", "log.Fatalln".
	How string
	// Message is what the program reports (the error of Comm.Abort, the
	// value of panic, the text of log.Fatal, the status of os.Exit).
	Message string
	// Modeled is false when the message depends on data the model does
	// not compute: Message then says so instead.
	Modeled bool
}

func (e *AbortError) Error() string {
	who := actor(e.Rank, e.Thread, "the program, before commlib.Main,")
	switch e.How {
	case "Comm.Abort":
		return fmt.Sprintf("%s aborted the run at %s: %s", who, e.Site, e.Message)
	case "panic":
		return fmt.Sprintf("%s panicked at %s: %s", who, e.Site, e.Message)
	case "os.Exit":
		return fmt.Sprintf("%s exited at %s with os.Exit(%s)", who, e.Site, e.Message)
	}
	return fmt.Sprintf("%s ended the run at %s with %s: %s", who, e.Site, e.How, e.Message)
}

// actor names a rank and thread (thread+1, 0 for the main thread), or
// the driver (rank -1) as driver.
func actor(rank, thread int, driver string) string {
	who := fmt.Sprintf("rank %d", rank)
	if rank < 0 {
		who = driver
	}
	if thread > 0 {
		who += fmt.Sprintf(" thread %d", thread-1)
	}
	return who
}

// unmodeledMessage stands for a message the model does not compute.
const unmodeledMessage = "(the message depends on data the model does not compute)"

// abort ends the run as the program does at site (file:line:col).
func (p *proc) abort(site, how, msg string, modeled bool) ctl {
	if p.err == nil {
		if !modeled {
			msg = unmodeledMessage
		}
		p.err = &AbortError{Rank: p.rank, Thread: p.thread(), Site: fileLine(site), How: how, Message: msg, Modeled: modeled}
	}
	return cStop
}

// fileLine drops the column of a file:line:col position.
func fileLine(pos string) string {
	if i := strings.LastIndexByte(pos, ':'); i > 0 && strings.Count(pos, ":") >= 2 {
		return pos[:i]
	}
	return pos
}

// modeled reports whether the reduced model computes v (in cf) for a
// message: as computed does, and a parameter only when it is a control
// parameter (the others are passed as zero values), and any value of a
// function the model runs whole.
func (c *compiler) modeled(cf *function, v ssa.Value) bool {
	if cf.full {
		return true
	}
	if v, ok := v.(*ssa.Parameter); ok {
		m := c.models[v.Parent()]
		return m != nil && slices.Contains(m.ControlParams, slices.Index(v.Parent().Params, v))
	}
	return c.computed(v)
}

// exitOp compiles a direct call of os.Exit or log.Fatal*, nil for other
// functions.
func (c *compiler) exitOp(cf *function, in *ssa.Call, name string, args []operand, site string) op {
	switch name {
	case "os.Exit", "log.Fatal", "log.Fatalf", "log.Fatalln":
	default:
		return nil
	}
	modeled := true
	for _, a := range in.Call.Args {
		modeled = modeled && c.modeled(cf, a)
	}
	return func(p *proc, fr *frame) ctl {
		return p.abort(site, name, exitMessage(name, evalArgs(args, fr)), modeled)
	}
}

// exitMessage is what os.Exit or log.Fatal* report for their arguments:
// the status, or the text log prints (without its time stamp).
func exitMessage(name string, a []V) string {
	switch name {
	case "os.Exit":
		return fmt.Sprint(a[0].I)
	case "log.Fatalf":
		format, _ := a[0].R.(string)
		return fmt.Sprintf(format, goArgs(a[1])...)
	case "log.Fatalln":
		return strings.TrimSuffix(fmt.Sprintln(goArgs(a[0])...), "\n")
	}
	return fmt.Sprint(goArgs(a[0])...)
}

// This file names the operations of Go's sync package (and of
// golang.org/x/sync/errgroup, built of them) that the model
// follows as synchronization of a rank's goroutines (issue 19): a call of
// one is a cfc leaf, as a commlib thread operation is, so the reduction
// keeps it and the interpreter runs it.

package modelgen

import (
	"go/types"

	"golang.org/x/tools/go/ssa"
)

// goSyncOps are the followed methods, by receiver type and name.
var goSyncOps = map[string]bool{
	"WaitGroup.Add": true, "WaitGroup.Done": true, "WaitGroup.Wait": true, "WaitGroup.Go": true,
	"Mutex.Lock": true, "Mutex.Unlock": true, "Mutex.TryLock": true,
	"RWMutex.Lock": true, "RWMutex.Unlock": true, "RWMutex.TryLock": true,
	"RWMutex.RLock": true, "RWMutex.RUnlock": true, "RWMutex.TryRLock": true,
	"Once.Do": true,
}

// errgroupPath is golang.org/x/sync's errgroup: a WaitGroup, a semaphore
// channel and a Once, which the model follows as it does those.
const errgroupPath = "golang.org/x/sync/errgroup"

// errgroupOps are errgroup.Group's followed methods (and WithContext).
var errgroupOps = map[string]bool{
	"Group.Go": true, "Group.TryGo": true, "Group.Wait": true, "Group.SetLimit": true,
}

// GoSyncOp names fn as "sync.WaitGroup.Wait" when it is a method of
// package sync that the model follows, or as "errgroup.Group.Go" (and
// "errgroup.WithContext") for errgroup's, and returns "" otherwise.
func GoSyncOp(fn *ssa.Function) string {
	if fn == nil {
		return ""
	}
	if o := fn.Origin(); o != nil {
		fn = o
	}
	obj, _ := fn.Object().(*types.Func)
	if obj == nil || obj.Pkg() == nil {
		return ""
	}
	pkg := obj.Pkg().Path()
	if pkg != "sync" && pkg != errgroupPath {
		return ""
	}
	recv := fn.Signature.Recv()
	if recv == nil {
		if pkg == errgroupPath && fn.Name() == "WithContext" {
			return "errgroup.WithContext"
		}
		return ""
	}
	t := recv.Type()
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := t.(*types.Named)
	if !ok {
		return ""
	}
	name := n.Obj().Name() + "." + fn.Name()
	if pkg == errgroupPath {
		if !errgroupOps[name] {
			return ""
		}
		return "errgroup." + name
	}
	if !goSyncOps[name] {
		return ""
	}
	return "sync." + name
}

// This file names the operations of Go's sync package that the model
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

// GoSyncOp names fn as "sync.WaitGroup.Wait" when it is a method of
// package sync that the model follows, and returns "" otherwise.
func GoSyncOp(fn *ssa.Function) string {
	if fn == nil {
		return ""
	}
	if o := fn.Origin(); o != nil {
		fn = o
	}
	obj, _ := fn.Object().(*types.Func)
	if obj == nil || obj.Pkg() == nil || obj.Pkg().Path() != "sync" {
		return ""
	}
	recv := fn.Signature.Recv()
	if recv == nil {
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
	if !goSyncOps[name] {
		return ""
	}
	return "sync." + name
}

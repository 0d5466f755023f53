// This file defines control-tree nodes and leaves.

package model

// Kind is the kind of a control-tree node.
type Kind string

// Node kinds.
const (
	KindSeq      Kind = "seq"      // Children run in order
	KindIf       Kind = "if"       // Cond, then Children[0] when true
	KindIfElse   Kind = "ifelse"   // Cond, then Children[0] when true, Children[1] when false
	KindSwitch   Kind = "switch"   // Children are KindCase nodes, tried in order
	KindCase     Kind = "case"     // Cond (nil for default), then Children[0]
	KindLoop     Kind = "loop"     // see Loop
	KindRegion   Kind = "region"   // an unstructured part: Children are KindBlock nodes, see Region
	KindBlock    Kind = "block"    // one block of a region: Children (leaves), then Cond or a jump, see Succs
	KindBreak    Kind = "break"    // leave the loop Target
	KindContinue Kind = "continue" // next iteration of the loop Target
	KindTest     Kind = "test"     // a condition: Children (leaves) run, then the branch on Value
	KindAnd      Kind = "and"      // short-circuit: Children[0] && Children[1]
	KindOr       Kind = "or"       // short-circuit: Children[0] || Children[1]
	KindNot      Kind = "not"      // !Children[0]
	KindLeaf     Kind = "leaf"     // see Leaf
)

// Node is a node of a control tree.
type Node struct {
	ID       string  `json:"id"`
	Kind     Kind    `json:"kind"`
	Pos      Range   `json:"pos,omitzero"`
	Children []*Node `json:"children,omitempty"`
	Cond     *Node   `json:"cond,omitempty"` // the test of if, ifelse, case, loop and region blocks

	Value  string  `json:"value,omitempty"`  // KindTest: the SSA value branched on
	Block  *int    `json:"block,omitempty"`  // KindTest, KindBlock: the SSA block index (none for a region's jump blocks)
	Target string  `json:"target,omitempty"` // KindBreak, KindContinue: the loop's ID
	Succs  []int   `json:"succs,omitempty"`  // KindBlock: successor blocks (true, false for a Cond); -1 leaves the region
	Loop   *Loop   `json:"loop,omitempty"`
	Switch *Switch `json:"switch,omitempty"`
	Leaf   *Leaf   `json:"leaf,omitempty"`

	// Opaque, on a KindTest filled by reduce, says why the decision cannot
	// be computed from kept values: its outcomes come from the profile.
	Opaque string `json:"opaque,omitempty"`
	// Check, on an opaque test that guards the end of the run (Abort,
	// panic, os.Exit), is the outcome that lets the run go on: "true" or
	// "false". The interpreter assumes the check passes.
	Check string `json:"check,omitempty"`

	// Time, Freq and Targets are filled by later stages (profile, interpretation).
	Time int64 `json:"time,omitempty"` // picoseconds
	Freq int64 `json:"freq,omitempty"`
}

// LoopForm is how a loop reads in the source.
type LoopForm string

// Loop forms.
const (
	LoopFor      LoopForm = "for"      // for init; cond; post
	LoopWhile    LoopForm = "while"    // for cond
	LoopDoWhile  LoopForm = "do-while" // the test is at the end of the body
	LoopRange    LoopForm = "range"    // for ... range
	LoopInfinite LoopForm = "infinite" // for { }: left only by break, return or panic
)

// Loop describes a KindLoop node. One iteration runs Header, then the test
// Cond (the loop ends when it is false), then Body, then Post; with
// TestAtBottom, Body runs first and Header and Cond after it. A continue
// goes to Post (or to the test).
type Loop struct {
	Form         LoopForm `json:"form"`
	Range        string   `json:"range,omitempty"` // for range loops: "slice", "array" (also through a pointer), "string", "int", "map", "chan", "func", "generic"
	TestAtBottom bool     `json:"test_at_bottom,omitempty"`
	// Trip, filled by reduce, is the loop's trip count as a formula of
	// kept values, when it has one.
	Trip   *TripCount `json:"trip,omitempty"`
	Header *Node      `json:"header,omitempty"`
	Body   *Node      `json:"body"`
	Post   *Node      `json:"post,omitempty"`
}

// TripCount describes how many times a loop body runs.
type TripCount struct {
	Formula string `json:"formula,omitempty"` // e.g. "max(0, n - 1)", "len(xs)"; empty when unknown
	// Nest is the number of runs of the innermost body of the nest this
	// loop heads, per entry of this loop, when the nest is perfect.
	Nest   string `json:"nest,omitempty"`
	Opaque string `json:"opaque,omitempty"` // why the count is not a formula of kept values
	// Candidate: the loop does not communicate (no commlib call, directly
	// or through calls), so it may be collapsed into one reduced node if
	// the profile finds it balanced.
	Candidate bool   `json:"candidate,omitempty"`
	Reason    string `json:"reason,omitempty"` // why it is not a candidate
	// Sealed: only the loop's test and its inner loops' tests are kept
	// inside it; the interpreter collapses it, or runs only its loops.
	Sealed bool `json:"sealed,omitempty"`
	// Communicates says how the loop communicates or synchronizes (a
	// commlib call, a goroutine, a call of a function that does), or is
	// empty when it does neither.
	Communicates string `json:"communicates,omitempty"`
	// Replays says which opaque decision inside the loop decides what the
	// model keeps (so the interpreter replays it at each iteration and the
	// timing pass must record it rather than time the loop whole), or is
	// empty.
	Replays string `json:"replays,omitempty"`
}

// Switch describes a KindSwitch node.
type Switch struct {
	Form string `json:"form"`          // "value", "type", "select" or "cond" (a tagless switch)
	Tag  string `json:"tag,omitempty"` // the SSA value compared, for value and type switches
}

// LeafKind classifies leaves, after ParJava.
type LeafKind string

// Leaf kinds.
const (
	LeafCB        LeafKind = "cb"        // computation
	LeafUFC       LeafKind = "ufc"       // call of a function of the program's module
	LeafEFC       LeafKind = "efc"       // call of a function outside it
	LeafCFC       LeafKind = "cfc"       // call of commlib
	LeafRet       LeafKind = "ret"       // return
	LeafSpawn     LeafKind = "spawn"     // go statement
	LeafDefer     LeafKind = "defer"     // defer statement (registers the call)
	LeafRunDefers LeafKind = "rundefers" // the deferred calls run, before a return
	LeafPanic     LeafKind = "panic"     // panic: the function ends abnormally
)

// Leaf is the descriptor of a leaf: a run of the instructions of one SSA
// basic block, or one call.
type Leaf struct {
	Kind   LeafKind `json:"kind"`
	Block  int      `json:"block"` // SSA block index
	First  int      `json:"first"` // instruction range [First, Last) in the block
	Last   int      `json:"last"`
	Instrs []string `json:"instrs"`

	In      []string `json:"in,omitempty"`      // values used here and defined elsewhere
	Out     []string `json:"out,omitempty"`     // values defined here and used elsewhere
	Control []string `json:"control,omitempty"` // filled by reduce: control values the leaf defines or uses
	// Keep, filled by reduce, lists the instructions (indexes into
	// Instrs) the reduced model executes; the others are dropped and
	// their cost comes from the profile.
	Keep []int `json:"keep,omitempty"`
	// ZeroArgs, filled by reduce, lists the arguments of a ufc call that
	// are not control parameters of the callee: they are passed as zero
	// values.
	ZeroArgs []int `json:"zero_args,omitempty"`

	Callee  string   `json:"callee,omitempty"`  // called function: a Function ID for ufc, a qualified name otherwise
	Op      string   `json:"op,omitempty"`      // cfc: the commlib operation, e.g. "Comm.Send"
	Args    []string `json:"args,omitempty"`    // call arguments (SSA values or constants)
	Dynamic bool     `json:"dynamic,omitempty"` // the callee is chosen at run time among Targets
	Targets []string `json:"targets,omitempty"` // candidate callees of a dynamic call
}

// Walk calls f on n and its descendants in depth-first order (Cond, loop
// parts and children included) until f returns false.
func Walk(n *Node, f func(*Node) bool) {
	if n == nil || !f(n) {
		return
	}
	Walk(n.Cond, f)
	if l := n.Loop; l != nil {
		Walk(l.Header, f)
		Walk(l.Body, f)
		Walk(l.Post, f)
	}
	for _, c := range n.Children {
		Walk(c, f)
	}
}

// ChildLoops returns the loops directly inside loop n (not those inside
// them).
func ChildLoops(n *Node) []*Node {
	var kids []*Node
	Walk(n.Loop.Body, func(x *Node) bool {
		if x.Kind == KindLoop {
			kids = append(kids, x)
			return false
		}
		return true
	})
	return kids
}

// InnerLoop returns the loop that is the body of loop n (a perfect nest:
// the only loop directly inside it), or nil.
func InnerLoop(n *Node) *Node {
	if kids := ChildLoops(n); len(kids) == 1 {
		return kids[0]
	}
	return nil
}

// OpaqueCond reports whether the condition of n has a test whose outcome
// is replayed from the profile rather than computed.
func OpaqueCond(n *Node) bool {
	opaque := false
	Walk(n.Cond, func(x *Node) bool {
		if x.Kind == KindTest && x.Opaque != "" {
			opaque = true
		}
		return !opaque
	})
	return opaque
}

// Blocks returns the SSA block indices that the leaves and tests of the
// subtree n cover (a block holding only a jump has no leaf and is not
// among them).
func Blocks(n *Node) map[int]bool {
	blocks := map[int]bool{}
	Walk(n, func(x *Node) bool {
		if x.Leaf != nil {
			blocks[x.Leaf.Block] = true
		}
		if x.Block != nil {
			blocks[*x.Block] = true
		}
		return true
	})
	return blocks
}

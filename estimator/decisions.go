// This file defines what the recording of opaque decisions needs beyond
// the probes themselves: whether the model reads a condition negated, and
// which functions without probes still record their decisions.

package estimator

import (
	"go/ast"
	"go/token"

	"github.com/predict-tools/predict/model"
)

// leadingNots counts the nots at the top of a condition tree.
func leadingNots(n *model.Node) int {
	k := 0
	for n != nil && n.Kind == model.KindNot && len(n.Children) == 1 {
		k++
		n = n.Children[0]
	}
	return k
}

// astNots counts the `!` at the top of an expression, through
// parentheses.
func astNots(e ast.Expr) int {
	k := 0
	for {
		switch x := e.(type) {
		case *ast.ParenExpr:
			e = x.X
			continue
		case *ast.UnaryExpr:
			if x.Op == token.NOT {
				k++
				e = x.X
				continue
			}
		}
		return k
	}
}

// replaysDecisions reports whether f holds an opaque decision the model
// replays (not a check, which the model assumes passes).
func replaysDecisions(f *model.Function) bool {
	found := false
	model.Walk(f.Tree, func(n *model.Node) bool {
		if n.Kind == model.KindTest && n.Opaque != "" && n.Check == "" {
			found = true
		}
		return !found
	})
	return found
}

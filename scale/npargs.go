// This file defines program arguments that depend on the process count
// ("-n {np*65536}"), the way a weak-scaling sweep grows the problem with np.

package scale

import (
	"fmt"
	"math"
	"strings"
)

// Args are a program's arguments in which every "{expr}" stands for the
// value of an integer expression in np, the process count: "{np*65536}",
// "-n={(np+1)/2}". Expressions have integer constants, np, + - * / (integer
// division, rounding toward zero), unary minus and parentheses. "{{" and
// "}}" stand for literal braces.
type Args []string

// Check parses every expression of the arguments, so that a bad one is
// reported before anything runs. The error names the argument at fault,
// as `argument 2 "-n={np*}": ...`.
func (args Args) Check() error {
	for i := range args {
		if _, _, err := args.expand(i, 1, false); err != nil {
			return err
		}
	}
	return nil
}

// DependOnNP reports whether some argument's value depends on np: the sweep
// then grows the problem with np (weak scaling). It is false for arguments
// that do not parse (Check reports them).
func (args Args) DependOnNP() bool {
	for i := range args {
		if _, uses, err := args.expand(i, 1, false); err == nil && uses {
			return true
		}
	}
	return false
}

// At returns the arguments with every expression replaced by its value at
// np. Errors name the argument and the np: division by zero or overflow
// can depend on it.
func (args Args) At(np int) ([]string, error) {
	out := make([]string, len(args))
	for i := range args {
		s, _, err := args.expand(i, np, true)
		if err != nil {
			return nil, err
		}
		out[i] = s
	}
	return out, nil
}

// expand expands argument i at np and reports whether it used np. Unless
// evaluate is set, only syntax errors are errors: division by zero and
// overflow are errors of one np.
func (args Args) expand(i, np int, evaluate bool) (string, bool, error) {
	arg := args[i]
	fail := func(format string, a ...any) (string, bool, error) {
		return "", false, fmt.Errorf("argument %d %q: "+format, append([]any{i + 1, arg}, a...)...)
	}
	var (
		b    strings.Builder
		uses bool
	)
	for j := 0; j < len(arg); j++ {
		c := arg[j]
		switch {
		case c == '{' && j+1 < len(arg) && arg[j+1] == '{', c == '}' && j+1 < len(arg) && arg[j+1] == '}':
			b.WriteByte(c)
			j++
		case c == '}':
			return fail("unmatched } at byte %d (write }} for a literal brace)", j+1)
		case c == '{':
			end := strings.IndexByte(arg[j+1:], '}')
			if end < 0 {
				return fail("unclosed { at byte %d (write {{ for a literal brace)", j+1)
			}
			text := arg[j+1 : j+1+end]
			e := exprParser{text: text, np: int64(np)}
			v, err := e.parse()
			if err != nil {
				return fail("{%s}: %v", text, err)
			}
			switch {
			case !evaluate:
			case e.divByZero:
				return fail("{%s} divides by zero at np=%d", text, np)
			case e.overflow:
				return fail("{%s} overflows at np=%d", text, np)
			}
			uses = uses || e.usesNP
			fmt.Fprint(&b, v)
			j += end + 1
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), uses, nil
}

// An exprParser evaluates one expression by recursive descent:
//
//	expr   = term { ("+" | "-") term }
//	term   = factor { ("*" | "/") factor }
//	factor = "-" factor | "(" expr ")" | integer | "np"
type exprParser struct {
	text string
	pos  int
	np   int64

	usesNP    bool
	divByZero bool
	overflow  bool
}

func (e *exprParser) parse() (int64, error) {
	if strings.TrimSpace(e.text) == "" {
		return 0, fmt.Errorf("empty expression")
	}
	v, err := e.expr()
	if err != nil {
		return 0, err
	}
	if e.skipSpace(); e.pos < len(e.text) {
		return 0, fmt.Errorf("unexpected %q at byte %d", e.text[e.pos:], e.pos+1)
	}
	return v, nil
}

func (e *exprParser) skipSpace() {
	for e.pos < len(e.text) && e.text[e.pos] == ' ' {
		e.pos++
	}
}

// peek returns the next byte after spaces, or 0 at the end.
func (e *exprParser) peek() byte {
	if e.skipSpace(); e.pos < len(e.text) {
		return e.text[e.pos]
	}
	return 0
}

func (e *exprParser) expr() (int64, error) {
	v, err := e.term()
	for err == nil {
		op := e.peek()
		if op != '+' && op != '-' {
			break
		}
		e.pos++
		var w int64
		if w, err = e.term(); err == nil {
			v = e.arith(op, v, w)
		}
	}
	return v, err
}

func (e *exprParser) term() (int64, error) {
	v, err := e.factor()
	for err == nil {
		op := e.peek()
		if op != '*' && op != '/' {
			break
		}
		e.pos++
		var w int64
		if w, err = e.factor(); err == nil {
			v = e.arith(op, v, w)
		}
	}
	return v, err
}

func (e *exprParser) factor() (int64, error) {
	switch c := e.peek(); {
	case c == '-':
		e.pos++
		v, err := e.factor()
		return e.arith('-', 0, v), err
	case c == '(':
		e.pos++
		v, err := e.expr()
		if err != nil {
			return 0, err
		}
		if e.peek() != ')' {
			return 0, fmt.Errorf("missing ) at byte %d", e.pos+1)
		}
		e.pos++
		return v, nil
	case c >= '0' && c <= '9':
		start := e.pos
		var v int64
		for e.pos < len(e.text) && e.text[e.pos] >= '0' && e.text[e.pos] <= '9' {
			d := int64(e.text[e.pos] - '0')
			if v > (math.MaxInt64-d)/10 {
				return 0, fmt.Errorf("constant %s… is too large", e.text[start:e.pos+1])
			}
			v = 10*v + d
			e.pos++
		}
		return v, nil
	case strings.HasPrefix(e.text[e.pos:], "np"):
		e.pos += 2
		e.usesNP = true
		return e.np, nil
	case c == 0:
		return 0, fmt.Errorf("expression ends early")
	default:
		return 0, fmt.Errorf("unexpected %q at byte %d (want np, an integer, - or ( )", e.text[e.pos:], e.pos+1)
	}
}

// arith applies op, recording division by zero and overflow (the result
// is then meaningless and the expression is refused).
func (e *exprParser) arith(op byte, a, b int64) int64 {
	switch op {
	case '+':
		r := a + b
		e.overflow = e.overflow || (a > 0 && b > 0 && r < 0) || (a < 0 && b < 0 && r >= 0)
		return r
	case '-':
		r := a - b
		e.overflow = e.overflow || (a >= 0 && b < 0 && r < 0) || (a < 0 && b > 0 && r >= 0)
		return r
	case '*':
		if a == 0 || b == 0 {
			return 0
		}
		r := a * b
		e.overflow = e.overflow || r/b != a || (a == -1 && b == math.MinInt64) || (b == -1 && a == math.MinInt64)
		return r
	default: // '/'
		if b == 0 {
			e.divByZero = true
			return 0
		}
		if a == math.MinInt64 && b == -1 {
			e.overflow = true
			return 0
		}
		return a / b
	}
}

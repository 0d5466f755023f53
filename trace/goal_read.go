// This file defines a reader of GOAL schedules, following the grammar of
// LogGOPSim's txt2bin, so that what WriteGOAL writes can be checked (and
// schedules made by other tools read).

package trace

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
)

// GOALSchedule is a GOAL schedule: the operations of each rank.
type GOALSchedule struct {
	NumRanks int
	Ranks    [][]GOALOp // Ranks[r] are rank r's operations in the order of the file
}

// GOALOp is one operation of a rank.
type GOALOp struct {
	Label     string // "" for an operation without a label
	Kind      string // "send", "recv" or "calc"
	Size      uint64 // bytes of a send or recv, time units (ns) of a calc
	Peer      int    // destination of a send, source of a recv (-1: any source)
	Tag       int64  // -1: any tag
	CPU, NIC  int
	Requires  []int // operations (indices in the rank's list) that must have completed
	IRequires []int // operations that must have started
	Line      int
}

// ReadGOAL reads a GOAL schedule as txt2bin does: statements end at line
// ends; "num_ranks N" comes first, then "rank R { ... }" for R = 0..N-1 in
// order; inside, "[LABEL:] send Sb to R [tag T] [cpu C] [nic N]", "recv Sb
// from R|-1 [tag T|-1] [cpu C] [nic N]", "calc T [cpu C]", "A requires B"
// and "A irequires B", where B is a label defined before; comments are
// "// ..." and "/* ... */" where a statement may start. Errors name the
// line. Beyond txt2bin it rejects duplicate labels, peers outside the
// ranks and text after the last rank.
func ReadGOAL(r io.Reader, name string) (*GOALSchedule, error) {
	data, err := io.ReadAll(bufio.NewReader(r))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	p := &goalParser{name: name, data: data, line: 1, s: &GOALSchedule{NumRanks: -1}}
	if err := p.parse(); err != nil {
		return nil, err
	}
	return p.s, nil
}

type goalParser struct {
	name   string
	data   []byte
	pos    int
	line   int
	s      *GOALSchedule
	rank   int // the rank block being read, -1 outside
	labels map[string]int
}

func (p *goalParser) errorf(format string, args ...any) error {
	return fmt.Errorf("%s:%d: %s", p.name, p.line, fmt.Sprintf(format, args...))
}

func (p *goalParser) peek() byte {
	if p.pos < len(p.data) {
		return p.data[p.pos]
	}
	return 0
}

func (p *goalParser) skipSpace() {
	for c := p.peek(); c == ' ' || c == '\t'; c = p.peek() {
		p.pos++
	}
}

// endOfLine consumes the end of a statement: spaces, then "\n" or "\r\n".
func (p *goalParser) endOfLine() error {
	p.skipSpace()
	if p.peek() == '\r' && p.pos+1 < len(p.data) && p.data[p.pos+1] == '\n' {
		p.pos++
	}
	switch p.peek() {
	case '\n':
		p.pos++
		p.line++
		return nil
	case 0:
		if p.pos >= len(p.data) {
			return nil
		}
	}
	return p.errorf("unexpected %q, want the end of the line", p.rest())
}

// rest returns the text from pos to the end of the line, for errors.
func (p *goalParser) rest() string {
	end := p.pos
	for end < len(p.data) && p.data[end] != '\n' && end-p.pos < 20 {
		end++
	}
	return string(p.data[p.pos:end])
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }

// word reads an identifier [a-zA-Z][a-zA-Z0-9_]*, or "" if none starts here.
func (p *goalParser) word() string {
	p.skipSpace()
	start := p.pos
	if !isLetter(p.peek()) {
		return ""
	}
	for c := p.peek(); isLetter(c) || isDigit(c) || c == '_'; c = p.peek() {
		p.pos++
	}
	return string(p.data[start:p.pos])
}

// number reads an unsigned decimal integer, or -1 where minusOne allows it.
func (p *goalParser) number(what string, minusOne bool) (int64, error) {
	p.skipSpace()
	if minusOne && p.peek() == '-' && p.pos+1 < len(p.data) && p.data[p.pos+1] == '1' &&
		(p.pos+2 >= len(p.data) || !isDigit(p.data[p.pos+2])) {
		p.pos += 2
		return -1, nil
	}
	start := p.pos
	for isDigit(p.peek()) {
		p.pos++
	}
	if start == p.pos {
		return 0, p.errorf("unexpected %q, want %s (an integer)", p.rest(), what)
	}
	v, err := strconv.ParseUint(string(p.data[start:p.pos]), 10, 63)
	if err != nil {
		return 0, p.errorf("%s %s: out of range", what, p.data[start:p.pos])
	}
	return int64(v), nil
}

func (p *goalParser) parse() error {
	p.rank = -1
	next := 0 // the rank expected next
	for p.pos < len(p.data) {
		p.skipSpace()
		switch c := p.peek(); {
		case c == '\n' || c == '\r':
			if err := p.endOfLine(); err != nil {
				return err
			}
			continue
		case c == '/' && p.pos+1 < len(p.data) && p.data[p.pos+1] == '/':
			for p.pos < len(p.data) && p.data[p.pos] != '\n' {
				p.pos++
			}
			continue
		case c == '/' && p.pos+1 < len(p.data) && p.data[p.pos+1] == '*':
			if err := p.blockComment(); err != nil {
				return err
			}
			continue
		case c == '}':
			if p.rank < 0 {
				return p.errorf("unexpected }, outside a rank")
			}
			p.pos++
			p.rank = -1
			continue
		case c == 0 && p.pos >= len(p.data):
			continue
		}
		startLine := p.line
		w := p.word()
		switch {
		case w == "":
			return p.errorf("unexpected %q, want a statement", p.rest())
		case w == "num_ranks":
			if p.s.NumRanks >= 0 {
				return p.errorf("num_ranks given twice")
			}
			n, err := p.number("the number of ranks", false)
			if err != nil {
				return err
			}
			if n < 1 || n > MaxRanks {
				return p.errorf("num_ranks %d: want 1..%d", n, MaxRanks)
			}
			p.s.NumRanks = int(n)
		case w == "rank":
			if p.rank >= 0 {
				return p.errorf("rank inside rank %d: missing }", p.rank)
			}
			if p.s.NumRanks < 0 {
				return p.errorf("rank before num_ranks")
			}
			r, err := p.number("a rank", false)
			if err != nil {
				return err
			}
			if int(r) != next || next >= p.s.NumRanks {
				return p.errorf("rank %d, want rank %d (ranks come in order 0..%d)", r, next, p.s.NumRanks-1)
			}
			p.s.Ranks = append(p.s.Ranks, nil)
			p.skipSpace()
			if p.peek() != '{' {
				return p.errorf("unexpected %q, want {", p.rest())
			}
			p.pos++
			p.rank, p.labels = int(r), map[string]int{}
			next++
			continue // the block may go on on this line, as txt2bin allows
		case p.rank < 0:
			return p.errorf("%s outside a rank", w)
		case w == "send" || w == "recv" || w == "calc":
			if err := p.operation("", w, startLine); err != nil {
				return err
			}
			continue
		default:
			p.skipSpace()
			if p.peek() == ':' {
				p.pos++
				if _, dup := p.labels[w]; dup {
					return p.errorf("label %s defined twice in rank %d", w, p.rank)
				}
				kind := p.word()
				if kind != "send" && kind != "recv" && kind != "calc" {
					return p.errorf("unexpected %q after %s:, want send, recv or calc", kind+p.rest(), w)
				}
				if err := p.operation(w, kind, startLine); err != nil {
					return err
				}
				continue
			}
			if err := p.dependency(w); err != nil {
				return err
			}
		}
		if err := p.endOfLine(); err != nil {
			return err
		}
	}
	switch {
	case p.rank >= 0:
		return p.errorf("end of file inside rank %d: missing }", p.rank)
	case p.s.NumRanks < 0:
		return p.errorf("no num_ranks")
	case next != p.s.NumRanks:
		return p.errorf("%d ranks, num_ranks is %d", next, p.s.NumRanks)
	}
	return nil
}

func (p *goalParser) blockComment() error {
	start := p.line
	p.pos += 2
	for p.pos+1 < len(p.data) {
		if p.data[p.pos] == '*' && p.data[p.pos+1] == '/' {
			p.pos += 2
			return nil
		}
		if p.data[p.pos] == '\n' {
			p.line++
		}
		p.pos++
	}
	return fmt.Errorf("%s:%d: unterminated /* comment", p.name, start)
}

// operation reads the rest of a send, recv or calc and its end of line.
func (p *goalParser) operation(label, kind string, line int) error {
	op := GOALOp{Label: label, Kind: kind, Line: line}
	size, err := p.number("a size", false)
	if err != nil {
		return err
	}
	op.Size = uint64(size)
	if kind != "calc" {
		p.skipSpace()
		if p.peek() != 'b' {
			return p.errorf("unexpected %q, want b after the size", p.rest())
		}
		p.pos++
		dir := p.word()
		if kind == "send" && dir != "to" || kind == "recv" && dir != "from" {
			return p.errorf("%s: want %s", kind, map[string]string{"send": "to", "recv": "from"}[kind])
		}
		peer, err := p.number("a rank", kind == "recv")
		if err != nil {
			return err
		}
		if peer >= int64(p.s.NumRanks) {
			return p.errorf("%s peer %d outside 0..%d", kind, peer, p.s.NumRanks-1)
		}
		op.Peer = int(peer)
	}
	allowed := []string{"tag", "cpu", "nic"}
	if kind == "calc" {
		allowed = []string{"cpu"}
	}
	for {
		w := p.word()
		if w == "" {
			break
		}
		at := -1
		for k, a := range allowed {
			if a == w {
				at = k
			}
		}
		if at < 0 {
			return p.errorf("unexpected %s in %s, want one of %v (in that order) or the end of the line", w, kind, allowed)
		}
		allowed = allowed[at+1:]
		v, err := p.number(w, w == "tag")
		if err != nil {
			return err
		}
		switch w {
		case "tag":
			if v > 1<<32-1 {
				return p.errorf("tag %d above 2^32-1", v)
			}
			op.Tag = v
		case "cpu", "nic":
			if v > 255 {
				return p.errorf("%s %d above 255", w, v)
			}
			if w == "cpu" {
				op.CPU = int(v)
			} else {
				op.NIC = int(v)
			}
		}
	}
	if err := p.endOfLine(); err != nil {
		return err
	}
	list := &p.s.Ranks[p.rank]
	if label != "" {
		p.labels[label] = len(*list)
	}
	*list = append(*list, op)
	return nil
}

// dependency reads "requires B" or "irequires B" after label a.
func (p *goalParser) dependency(a string) error {
	verb := p.word()
	if verb != "requires" && verb != "irequires" {
		return p.errorf("unexpected %q after %s, want :, requires or irequires", verb+p.rest(), a)
	}
	b := p.word()
	if b == "" {
		return p.errorf("unexpected %q, want a label after %s", p.rest(), verb)
	}
	ia, ok := p.labels[a]
	if !ok {
		return p.errorf("label %s is not defined (before this line) in rank %d", a, p.rank)
	}
	ib, ok := p.labels[b]
	if !ok {
		return p.errorf("label %s is not defined (before this line) in rank %d", b, p.rank)
	}
	op := &p.s.Ranks[p.rank][ia]
	if verb == "requires" {
		op.Requires = append(op.Requires, ib)
	} else {
		op.IRequires = append(op.IRequires, ib)
	}
	return nil
}

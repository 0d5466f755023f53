// This file defines how the instrumented sources are written: insertions
// at byte offsets, and loops emitted twice (versions) with line directives
// that keep every position of the user's file.

package estimator

import (
	"fmt"
	"sort"
	"strings"
)

// version is a loop statement emitted twice: a sampled copy, with the
// edits marked sampled, and the original, without them, as
//
//	sampled /*line :L:C*/ COPY plain /*line :L:C*/ ORIGINAL close
//
// where sampled ends with `if ls != 0 {`, plain holds `} else {` and close
// `}` with what follows the loop. The line directives give both copies the
// loop's own positions (line L, column C); after the original, the file's
// lines run on as in the user's file.
type version struct {
	start, end int // byte offsets of the loop statement
	line, col  int // position of start
	sampled    string
	plain      string
	close      string
	// outline, if set, moves the sampled copy into a function appended
	// to the file (outline.go): the call to it stands in its place.
	outline *outlined
}

// apply writes src with its edits and versions.
func apply(src []byte, edits []edit, versions []version) []byte {
	w := writer{src: src, edits: edits, versions: versions}
	w.emit(0, len(src), true, false)
	if len(w.funcs) > 0 {
		w.out = append(w.out, "\n\n"+strings.Join(w.funcs, "\n\n")+"\n"...)
	}
	return w.out
}

// writer writes an instrumented file.
type writer struct {
	src      []byte
	edits    []edit
	versions []version
	out      []byte
	funcs    []string // outlined sampled copies, appended to the file
}

// emit writes src[lo:hi] with the edits in it (at lo and hi too when
// bounds, strictly inside otherwise) and the versions in it, leaving out
// the sampled edits unless sampled (the region is a sampled copy). A
// sampled edit belongs to the innermost version around it: a version
// nested in either copy of another has both its copies, each with its own
// edits. Edits at one offset keep the order they were made in, before a
// version starting there.
func (w *writer) emit(lo, hi int, bounds, sampled bool) {
	in := func(off int) bool {
		if bounds {
			return lo <= off && off <= hi
		}
		return lo < off && off < hi
	}
	type item struct {
		off int
		e   *edit
		v   *version
	}
	var items []item
	for i := range w.edits {
		if e := &w.edits[i]; in(e.offset) {
			items = append(items, item{off: e.offset, e: e})
		}
	}
	for i := range w.versions {
		if v := &w.versions[i]; in(v.start) && v.end <= hi {
			items = append(items, item{off: v.start, v: v})
		}
	}
	sort.SliceStable(items, func(i, j int) bool {
		a, b := items[i], items[j]
		switch {
		case a.off != b.off:
			return a.off < b.off
		case (a.v == nil) != (b.v == nil):
			return a.v == nil
		case a.e != nil:
			return a.e.seq < b.e.seq
		}
		return false
	})
	pos := lo
	for _, it := range items {
		if it.off < pos {
			continue // inside a version written already
		}
		w.out = append(w.out, w.src[pos:it.off]...)
		pos = it.off
		if e := it.e; e != nil {
			if (!e.sampled || sampled) && (!e.plain || !sampled) {
				w.out = append(w.out, e.text...)
			}
			continue
		}
		v := it.v
		directive := fmt.Sprintf("/*line :%d:%d*/", v.line, v.col)
		w.out = append(w.out, v.sampled...)
		if v.outline != nil {
			out := w.out
			w.out = []byte(directive)
			w.emit(v.start, v.end, false, true)
			w.funcs = append(w.funcs, v.outline.function(string(w.out)))
			w.out = append(out, v.outline.call()...)
		} else {
			w.out = append(w.out, directive...)
			w.emit(v.start, v.end, false, true)
		}
		w.out = append(w.out, v.plain...)
		w.out = append(w.out, directive...)
		w.emit(v.start, v.end, false, false)
		w.out = append(w.out, v.close...)
		pos = v.end
	}
	w.out = append(w.out, w.src[pos:hi]...)
}

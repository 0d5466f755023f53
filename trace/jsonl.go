// This file defines the native JSON-lines reader and writer.

package trace

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
)

// Sort orders events by enter time, then rank, thread and sequence: the order
// of the native file.
func Sort(events []Event) {
	slices.SortStableFunc(events, func(a, b Event) int {
		return cmp.Or(
			cmp.Compare(a.Enter, b.Enter),
			cmp.Compare(a.Rank, b.Rank),
			cmp.Compare(a.Thread, b.Thread),
			cmp.Compare(a.Seq, b.Seq))
	})
}

// WriteJSONL writes h and events (in the given order) as JSON lines.
func WriteJSONL(w io.Writer, h Header, events []Event) error {
	h.Format, h.Version = FormatName, FormatVersion
	bw := bufio.NewWriterSize(w, 1<<16)
	enc := json.NewEncoder(bw)
	if err := enc.Encode(h); err != nil {
		return err
	}
	for i := range events {
		if err := enc.Encode(&events[i]); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// MaxRanks is the largest number of ranks a trace header may declare.
const MaxRanks = 1 << 24

// ReadJSONL reads a native trace. name is used in errors, which give the line
// at fault. Besides the JSON syntax and fields, it checks what the writers
// rely on: a header with 1..MaxRanks ranks, known kinds, ranks, peers and
// roots of the run, threads and byte counts that are not negative, and
// 0 ≤ enter ≤ exit.
func ReadJSONL(r io.Reader, name string) (Header, []Event, error) {
	var h Header
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<16), 1<<26)
	line := 0
	header := false
	var events []Event
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		if !header {
			if err := decodeLine(b, &h); err != nil {
				return h, nil, fmt.Errorf("%s:%d: not a %s header: %v", name, line, FormatName, err)
			}
			if err := checkHeader(&h); err != nil {
				return h, nil, fmt.Errorf("%s:%d: %v", name, line, err)
			}
			header = true
			continue
		}
		var e Event
		if err := decodeLine(b, &e); err != nil {
			return h, nil, fmt.Errorf("%s:%d: %v", name, line, err)
		}
		if err := checkEvent(&h, &e); err != nil {
			return h, nil, fmt.Errorf("%s:%d: %v", name, line, err)
		}
		events = append(events, e)
	}
	if err := sc.Err(); err != nil {
		return h, nil, fmt.Errorf("%s:%d: %v", name, line+1, err)
	}
	if !header {
		return h, nil, fmt.Errorf("%s: empty file, want a %s header line", name, FormatName)
	}
	return h, events, nil
}

// decodeLine decodes one JSON object that must fill the whole line.
func decodeLine(b []byte, v any) error {
	if b[0] != '{' {
		return fmt.Errorf("want a JSON object, found %q", truncate(b, 20))
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if rest := bytes.TrimSpace(b[dec.InputOffset():]); len(rest) > 0 {
		return fmt.Errorf("%q after the JSON object", truncate(rest, 20))
	}
	return nil
}

func truncate(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "..."
	}
	return string(b)
}

func checkHeader(h *Header) error {
	switch {
	case h.Format != FormatName:
		return fmt.Errorf("format %q, want %q", h.Format, FormatName)
	case h.Version != FormatVersion:
		return fmt.Errorf("%s version %d, this build reads version %d", FormatName, h.Version, FormatVersion)
	case h.NP < 1 || h.NP > MaxRanks:
		return fmt.Errorf("np %d: want 1..%d ranks", h.NP, MaxRanks)
	}
	return nil
}

func checkEvent(h *Header, e *Event) error {
	switch e.Kind {
	case KindOp, KindComplete, KindCompute, KindCoreWait:
	default:
		return fmt.Errorf("kind %q, want %q, %q, %q or %q", e.Kind, KindOp, KindComplete, KindCompute, KindCoreWait)
	}
	switch {
	case e.Rank < 0 || e.Rank >= h.NP:
		return fmt.Errorf("rank %d outside 0..%d", e.Rank, h.NP-1)
	case e.Thread < 0:
		return fmt.Errorf("thread %d: want 0 or more", e.Thread)
	case e.Peer < NoPeer || e.Peer >= h.NP:
		return fmt.Errorf("peer %d outside -1..%d", e.Peer, h.NP-1)
	case e.Root < NoPeer || e.Root >= h.NP:
		return fmt.Errorf("root %d outside -1..%d", e.Root, h.NP-1)
	case e.Bytes < 0:
		return fmt.Errorf("bytes %d: want 0 or more", e.Bytes)
	case e.Enter < 0:
		return fmt.Errorf("enter %d before the start of the run", e.Enter)
	case e.Exit < e.Enter:
		return fmt.Errorf("exit %d before enter %d", e.Exit, e.Enter)
	}
	return nil
}

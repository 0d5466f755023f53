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

// ReadJSONL reads a native trace. name is used in errors, which give the line
// at fault.
func ReadJSONL(r io.Reader, name string) (Header, []Event, error) {
	var h Header
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<16), 1<<26)
	line := 0
	var events []Event
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if line == 1 {
			if err := dec.Decode(&h); err != nil {
				return h, nil, fmt.Errorf("%s:1: not a %s header: %v", name, FormatName, err)
			}
			if h.Format != FormatName {
				return h, nil, fmt.Errorf("%s:1: format %q, want %q", name, h.Format, FormatName)
			}
			if h.Version != FormatVersion {
				return h, nil, fmt.Errorf("%s:1: %s version %d, this build reads version %d", name, FormatName, h.Version, FormatVersion)
			}
			continue
		}
		var e Event
		if err := dec.Decode(&e); err != nil {
			return h, nil, fmt.Errorf("%s:%d: %v", name, line, err)
		}
		if e.Rank < 0 || (h.NP > 0 && e.Rank >= h.NP) {
			return h, nil, fmt.Errorf("%s:%d: rank %d outside 0..%d", name, line, e.Rank, h.NP-1)
		}
		if e.Exit < e.Enter {
			return h, nil, fmt.Errorf("%s:%d: exit %d before enter %d", name, line, e.Exit, e.Enter)
		}
		events = append(events, e)
	}
	if err := sc.Err(); err != nil {
		return h, nil, fmt.Errorf("%s:%d: %v", name, line+1, err)
	}
	if line == 0 {
		return h, nil, fmt.Errorf("%s: empty file, want a %s header line", name, FormatName)
	}
	return h, events, nil
}

// This file defines the CSV writer.

package trace

import (
	"bufio"
	"encoding/csv"
	"io"
	"slices"
	"strconv"
	"strings"
)

// CSVColumns are the columns of WriteCSV's header line: every field of
// Event, under its JSON name; times are in picoseconds.
var CSVColumns = []string{"rank", "thread", "kind", "op", "peer", "root", "tag", "bytes", "comm",
	"request", "requests", "message", "collective", "object", "protocol", "site", "enter_ps", "exit_ps", "seq"}

// WriteCSV writes events as CSV (RFC 4180): the header line CSVColumns,
// then one row per event in the native order (Sort). Numbers are decimal,
// absent ids are 0 and absent peers and roots -1 as in Event; requests is
// the list of request ids separated by spaces. The trace header is not
// written: CSV has no place for it.
func WriteCSV(w io.Writer, h Header, events []Event) error {
	events = slices.Clone(events)
	Sort(events)
	bw := bufio.NewWriterSize(w, 1<<16)
	cw := csv.NewWriter(bw)
	if err := cw.Write(CSVColumns); err != nil {
		return err
	}
	row := make([]string, len(CSVColumns))
	var reqs strings.Builder
	for i := range events {
		e := &events[i]
		reqs.Reset()
		for j, r := range e.Requests {
			if j > 0 {
				reqs.WriteByte(' ')
			}
			reqs.WriteString(strconv.FormatInt(r, 10))
		}
		row = append(row[:0],
			strconv.Itoa(e.Rank), strconv.Itoa(e.Thread), string(e.Kind), e.Op,
			strconv.Itoa(e.Peer), strconv.Itoa(e.Root), strconv.Itoa(e.Tag),
			strconv.FormatInt(e.Bytes, 10), strconv.Itoa(e.Comm),
			strconv.FormatInt(e.Request, 10), reqs.String(), strconv.FormatInt(e.Message, 10),
			strconv.FormatInt(e.Collective, 10), strconv.FormatInt(e.Object, 10),
			e.Protocol, e.Site,
			strconv.FormatInt(int64(e.Enter), 10), strconv.FormatInt(int64(e.Exit), 10),
			strconv.FormatInt(e.Seq, 10))
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return err
	}
	return bw.Flush()
}

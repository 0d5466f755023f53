package trace

import (
	"bytes"
	"encoding/csv"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestCSV reads the CSV of each real trace back and compares every field
// of every row with the event.
func TestCSV(t *testing.T) {
	for name, tr := range realTraces(t) {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := WriteCSV(&buf, tr.h, tr.events); err != nil {
				t.Fatal(err)
			}
			rows, err := csv.NewReader(&buf).ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(rows[0], CSVColumns) {
				t.Fatalf("header %v, want %v", rows[0], CSVColumns)
			}
			events := slices.Clone(tr.events)
			Sort(events)
			if len(rows)-1 != len(events) {
				t.Fatalf("%d rows, want %d", len(rows)-1, len(events))
			}
			for i, row := range rows[1:] {
				e := events[i]
				var reqs []string
				for _, r := range e.Requests {
					reqs = append(reqs, strconv.FormatInt(r, 10))
				}
				want := map[string]string{
					"rank": strconv.Itoa(e.Rank), "thread": strconv.Itoa(e.Thread), "kind": string(e.Kind), "op": e.Op,
					"peer": strconv.Itoa(e.Peer), "root": strconv.Itoa(e.Root), "tag": strconv.Itoa(e.Tag),
					"bytes": strconv.FormatInt(e.Bytes, 10), "comm": strconv.Itoa(e.Comm),
					"request": strconv.FormatInt(e.Request, 10), "requests": strings.Join(reqs, " "),
					"message": strconv.FormatInt(e.Message, 10), "collective": strconv.FormatInt(e.Collective, 10),
					"object": strconv.FormatInt(e.Object, 10), "protocol": e.Protocol, "site": e.Site,
					"enter_ps": strconv.FormatInt(int64(e.Enter), 10), "exit_ps": strconv.FormatInt(int64(e.Exit), 10),
					"seq": strconv.FormatInt(e.Seq, 10),
				}
				if len(want) != len(CSVColumns) {
					t.Fatalf("the test checks %d columns of %d", len(want), len(CSVColumns))
				}
				for c, col := range CSVColumns {
					if row[c] != want[col] {
						t.Errorf("row %d column %s = %q, want %q", i+1, col, row[c], want[col])
					}
				}
			}
		})
	}
}

func TestCSVQuoting(t *testing.T) {
	e := ev(0, "Send", 1, 2, 1)
	e.Site = `dir,with "quotes"/a.go:3`
	e.Requests = []int64{4, 5}
	var buf bytes.Buffer
	if err := WriteCSV(&buf, Header{NP: 1}, []Event{e}); err != nil {
		t.Fatal(err)
	}
	want := "rank,thread,kind,op,peer,root,tag,bytes,comm,request,requests,message,collective,object,protocol,site,enter_ps,exit_ps,seq\n" +
		`0,0,op,Send,-1,-1,0,0,0,0,4 5,0,0,0,,"dir,with ""quotes""/a.go:3",1000,2000,1` + "\n"
	if buf.String() != want {
		t.Errorf("CSV:\n%s\nwant\n%s", buf.String(), want)
	}
}

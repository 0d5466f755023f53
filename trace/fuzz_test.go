package trace

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// readErr is the shape of every error of ReadJSONL: the file and the line.
var readErr = regexp.MustCompile(`^f\.jsonl(:\d+)?: `)

// FuzzRead feeds ReadJSONL malformed traces: it must return an error naming
// the line, never panic; and whatever it accepts, every writer must write
// (GOAL such that ReadGOAL reads it back).
func FuzzRead(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.jsonl")
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		if len(data) < 8<<10 {
			f.Add(data)
		}
	}
	const header = `{"format":"predict-trace","version":1,"source":"commlib","np":2,"clock":"monotonic"}` + "\n"
	for _, s := range []string{
		"",
		"\n\n",
		"not json",
		header,
		"\n" + header + `{"rank":1,"thread":0,"kind":"op","op":"Recv","peer":0,"root":-1,"comm":0,"message":3,"enter":5,"exit":9,"seq":1}`,
		header + `{"rank":0,"kind":"op","op":"Send","peer":1,"root":-1,"message":3,"protocol":"eager","enter":1,"exit":2,"seq":1} trailing`,
		header + `{"rank":0,"kind":"op","op":"Isend","peer":1,"root":-1,"request":1,"message":3,"protocol":"eager","enter":1,"exit":2,"seq":1}` + "\n" +
			`{"rank":0,"kind":"complete","op":"Isend","peer":1,"root":-1,"request":1,"message":3,"enter":4,"exit":4,"seq":2}`,
		header + `{"rank":0,"kind":"op","op":"Allreduce","peer":-1,"root":-1,"collective":1,"enter":1,"exit":2,"seq":1}`,
		header + `{"rank":0,"kind":"op","op":"Bcast","peer":-1,"root":1,"collective":1,"bytes":8,"enter":1,"exit":2,"seq":1}` + "\n" +
			`{"rank":1,"kind":"op","op":"Bcast","peer":-1,"root":1,"collective":1,"bytes":8,"enter":1,"exit":2,"seq":1}`,
		header + `{"rank":0,"kind":"compute","op":"","peer":-1,"root":-1,"enter":0,"exit":9223372036854775807,"seq":1}`,
		header + `null`,
		header + `{"rank":0,"thread":3,"kind":"op","op":"Mutex.Lock","peer":-1,"root":-1,"object":2,"enter":1,"exit":2,"seq":1}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		h, events, err := ReadJSONL(bytes.NewReader(data), "f.jsonl")
		if err != nil {
			if !readErr.MatchString(err.Error()) {
				t.Fatalf("error %q does not name the file and line", err)
			}
			return
		}
		if h.NP > 1<<10 {
			return // the writers' output grows with the ranks: too slow for a fuzzer, not wrong
		}
		for _, format := range Formats {
			if format == "paraver" {
				if err := WriteParaver(io.Discard, io.Discard, io.Discard, h, events); err != nil {
					t.Fatalf("paraver: %v", err)
				}
				continue
			}
			var buf bytes.Buffer
			if err := Encode(&buf, format, h, events); err != nil {
				t.Fatalf("%s: %v", format, err)
			}
			if format == "goal" {
				if _, err := ReadGOAL(&buf, "f.goal"); err != nil {
					t.Fatalf("the GOAL written does not read back: %v", err)
				}
			}
		}
	})
}

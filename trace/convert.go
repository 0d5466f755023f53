// This file defines the conversion of native traces to the other formats,
// as predict trace convert does it.

package trace

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Formats are the output formats of Convert and Encode, sorted.
var Formats = []string{"chrome", "csv", "goal", "jsonl", "paraver"}

// formatExtensions maps file extensions to formats, for FormatOf.
var formatExtensions = map[string]string{
	".json": "chrome", ".jsonl": "jsonl", ".prv": "paraver", ".goal": "goal", ".csv": "csv",
}

// FormatOf returns the format a file name's extension stands for: .json
// chrome, .jsonl jsonl, .prv paraver, .goal goal, .csv csv.
func FormatOf(path string) (string, bool) {
	f, ok := formatExtensions[strings.ToLower(filepath.Ext(path))]
	return f, ok
}

// UnknownFormatError reports a format that is not one of Formats.
type UnknownFormatError struct{ Format string }

func (e *UnknownFormatError) Error() string {
	return fmt.Sprintf("unknown format %q, want one of %s", e.Format, strings.Join(Formats, ", "))
}

// Encode writes h and events to w in format, which must not be "paraver"
// (three files: see WriteParaver).
func Encode(w io.Writer, format string, h Header, events []Event) error {
	switch format {
	case "chrome":
		return WriteChrome(w, h, events)
	case "csv":
		return WriteCSV(w, h, events)
	case "goal":
		return WriteGOAL(w, h, events)
	case "jsonl":
		events = slices.Clone(events)
		Sort(events)
		return WriteJSONL(w, h, events)
	case "paraver":
		return fmt.Errorf("the paraver format is three files (.prv, .pcf, .row): it cannot go to one stream")
	}
	return &UnknownFormatError{format}
}

// Outputs returns the files Convert writes for out in format: out itself,
// or for paraver BASE.prv, BASE.pcf and BASE.row where BASE is out without
// its .prv extension.
func Outputs(out, format string) []string {
	if format != "paraver" {
		return []string{out}
	}
	base := out
	if strings.EqualFold(filepath.Ext(out), ".prv") {
		base = strings.TrimSuffix(out, filepath.Ext(out))
	}
	return []string{base + ".prv", base + ".pcf", base + ".row"}
}

// Convert reads a native trace from in (named inName in errors, which give
// the line at fault) and writes it to the files Outputs(out, format). The
// files are written to temporary names and renamed once all are complete:
// on error no output file is created or changed.
func Convert(in io.Reader, inName, out, format string) error {
	return ConvertGOALOptions(in, inName, out, format, GOALOptions{})
}

// ConvertGOALOptions is Convert with the options of the GOAL writer
// (ignored for other formats).
func ConvertGOALOptions(in io.Reader, inName, out, format string, goal GOALOptions) error {
	if !slices.Contains(Formats, format) {
		return &UnknownFormatError{format}
	}
	h, events, err := ReadJSONL(in, inName)
	if err != nil {
		return err
	}
	Sort(events)
	paths := Outputs(out, format)
	files := make([]*os.File, len(paths))
	defer func() {
		for _, f := range files {
			if f != nil {
				f.Close()
				os.Remove(f.Name())
			}
		}
	}()
	writers := make([]io.Writer, len(paths))
	for i, p := range paths {
		f, err := os.CreateTemp(filepath.Dir(p), "."+filepath.Base(p)+".tmp*")
		if err != nil {
			var pathErr *os.PathError
			if errors.As(err, &pathErr) {
				err = pathErr.Err
			}
			return fmt.Errorf("%s: %v", p, err)
		}
		files[i], writers[i] = f, f
	}
	switch format {
	case "paraver":
		err = WriteParaver(writers[0], writers[1], writers[2], h, events)
	case "goal":
		err = WriteGOALOptions(writers[0], h, events, goal)
	default:
		err = Encode(writers[0], format, h, events)
	}
	if err != nil {
		return fmt.Errorf("%s: %v", paths[0], err)
	}
	for i, f := range files {
		if err := f.Chmod(0o644); err != nil {
			return err
		}
		if err := f.Close(); err != nil {
			return fmt.Errorf("%s: %v", paths[i], err)
		}
	}
	for i, f := range files {
		if err := os.Rename(f.Name(), paths[i]); err != nil {
			return fmt.Errorf("%s: %v", paths[i], err)
		}
		files[i] = nil
	}
	return nil
}

// This file defines the marks by which interp's tests find the nodes of
// their testdata programs: a line comment holding "mark:NAME" (alone,
// "// mark:NAME", or after a comment's text, "// why; mark:NAME") names
// its line, so that a test does not hard-code line numbers that an edit
// of the program would shift.

package interp

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// markLine returns the line of file (relative to the module root) whose
// comment holds mark:name.
func markLine(t *testing.T, file, name string) int {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", file))
	if err != nil {
		t.Fatal(err)
	}
	line := 0
	for i, text := range strings.Split(string(data), "\n") {
		_, comment, ok := strings.Cut(text, "//")
		if ok && slices.Contains(strings.FieldsFunc(comment, func(r rune) bool { return r == ' ' || r == ';' }), "mark:"+name) {
			if line != 0 {
				t.Fatalf("%s: mark %q on lines %d and %d", file, name, line, i+1)
			}
			line = i + 1
		}
	}
	if line == 0 {
		t.Fatalf("%s: no line marked // mark:%s", file, name)
	}
	return line
}

// markPos returns "file:line" of the line marked name, as positions are
// written in reports and errors.
func markPos(t *testing.T, file, name string) string {
	t.Helper()
	return fmt.Sprintf("%s:%d", file, markLine(t, file, name))
}

// markSpan returns "file:first-last" of the statement whose first line is
// marked name and whose last is marked name-end, as a loop's position is
// written.
func markSpan(t *testing.T, file, name string) string {
	t.Helper()
	return fmt.Sprintf("%s-%d", markPos(t, file, name), markLine(t, file, name+"-end"))
}

package main

import (
	"runtime/debug"
	"strings"
	"testing"
)

func explode() { panic("boom") }

func TestStackExcerpt(t *testing.T) {
	var got string
	func() {
		defer func() {
			if recover() != nil {
				got = stackExcerpt(debug.Stack(), 3)
			}
		}()
		explode()
	}()
	lines := strings.Split(got, "\n")
	if len(lines) == 0 || !strings.Contains(lines[0], ".explode(") {
		t.Fatalf("excerpt does not start at the panicking function:\n%s", got)
	}
	if !strings.Contains(got, "more frames") {
		t.Errorf("excerpt not cut at 3 frames:\n%s", got)
	}
}

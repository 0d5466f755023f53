package scale

import (
	"slices"
	"strings"
	"testing"
)

func TestParseRange(t *testing.T) {
	for _, test := range []struct {
		in   string
		want []int
	}{
		{"64", []int{64}},
		{" 64 ", []int{64}},
		{"1", []int{1}},
		{"8..256", []int{8, 16, 32, 64, 128, 256}},
		{"8..100", []int{8, 16, 32, 64, 100}},
		{"1..1", []int{1}},
		{"3..3:5", []int{3}},
		{"8..256:8", []int{8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88, 96, 104, 112, 120, 128, 136, 144, 152, 160, 168, 176, 184, 192, 200, 208, 216, 224, 232, 240, 248, 256}},
		{"1..10:4", []int{1, 5, 9, 10}},
		{"1,2,4,12", []int{1, 2, 4, 12}},
		{"12, 4,2 ,1,4", []int{1, 2, 4, 12}},
		{"1,8..32,6..8:1", []int{1, 6, 7, 8, 16, 32}},
		{"1073741824..2147483647", []int{1073741824, 2147483647}},
		{"2147483647", []int{MaxNP}},
		{"1..2147483647", nil}, // checked for length below: 32 values
	} {
		got, err := ParseRange(test.in)
		if err != nil {
			t.Errorf("ParseRange(%q): %v", test.in, err)
			continue
		}
		if test.want == nil {
			if len(got) != 32 || got[0] != 1 || got[30] != 1<<30 || got[31] != MaxNP {
				t.Errorf("ParseRange(%q) = %v", test.in, got)
			}
			continue
		}
		if !slices.Equal(got, test.want) {
			t.Errorf("ParseRange(%q) = %v, want %v", test.in, got, test.want)
		}
	}
}

func TestParseRangeErrors(t *testing.T) {
	for _, test := range []struct{ in, want string }{
		{"", "-np: no process count given"},
		{"  ", "-np: no process count given"},
		{"0", "-np 0: process count 0 is less than 1"},
		{"-3", "-np -3: process count -3 is less than 1"},
		{"-99999999999999999999", "-np -99999999999999999999: process count -99999999999999999999 is less than 1"},
		{"x", `-np x: "x" is not an integer`},
		{"1.5", `-np 1.5: "1.5" is not an integer`},
		{"99999999999999999999", "-np 99999999999999999999: 99999999999999999999 is above the largest process count 2147483647"},
		{"2147483648", "-np 2147483648: 2147483648 is above the largest process count 2147483647"},
		{"x..y", `-np x..y: lower end: "x" is not an integer`},
		{"8..y", `-np 8..y: upper end: "y" is not an integer`},
		{"..8", "-np ..8: lower end: missing process count"},
		{"8..", "-np 8..: upper end: missing process count"},
		{"0..8", "-np 0..8: lower end: process count 0 is less than 1"},
		{"8..4", "-np 8..4: empty range (8 > 4)"},
		{"8..4:2", "-np 8..4:2: empty range (8 > 4)"},
		{"8..256:0", "-np 8..256:0: step must be at least 1"},
		{"8..256:-1", `-np 8..256:-1: step "-1" is not a positive integer`},
		{"8..256:x", `-np 8..256:x: step "x" is not a positive integer`},
		{"8..256:", `-np 8..256:: step "" is not a positive integer`},
		{"8..256:99999999999999999999", "-np 8..256:99999999999999999999: step 99999999999999999999 is too large"},
		{"8..256:2147483648", "-np 8..256:2147483648: step 2147483648 is too large"},
		{"8..16..32", `-np 8..16..32: upper end: "16..32" is not an integer`},
		{"1..100000000:1", "-np 1..100000000:1: 100000000 process counts, more than 16777216"},
		{"1..16777216:1", ""}, // exactly MaxPoints: accepted
		{"1..16777216:1,20000000..30000000:1", "-np 1..16777216:1,20000000..30000000:1: more than 16777216 process counts"},
		{"1,,2", "-np: empty item in the list"},
		{"1,", "-np: empty item in the list"},
		{"1,x", `-np x: "x" is not an integer`},
		{"1,8..4", "-np 8..4: empty range (8 > 4)"},
	} {
		got, err := ParseRange(test.in)
		if test.want == "" {
			if err != nil || len(got) != MaxPoints {
				t.Errorf("ParseRange(%q): %d values, error %v", test.in, len(got), err)
			}
			continue
		}
		if err == nil {
			t.Errorf("ParseRange(%q) = %v, want error %q", test.in, got, test.want)
			continue
		}
		if err.Error() != test.want {
			t.Errorf("ParseRange(%q) error:\n got  %s\n want %s", test.in, err, test.want)
		}
	}
}

func TestParseRangeLongError(t *testing.T) {
	in := strings.Repeat("1..16777216:1,", 4) + "3"
	_, err := ParseRange(in)
	if err == nil || !strings.Contains(err.Error(), "…: more than") {
		t.Fatalf("ParseRange(long list): %v", err)
	}
}

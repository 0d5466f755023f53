package scale

import (
	"slices"
	"strings"
	"testing"
)

func TestArgsAt(t *testing.T) {
	for _, tc := range []struct {
		args []string
		np   int
		want []string
		weak bool
	}{
		{[]string{"-n", "{np*65536}"}, 4, []string{"-n", "262144"}, true},
		{[]string{"-n={ (np + 1) / 2 }x"}, 5, []string{"-n=3x"}, true},
		{[]string{"{np*np-np}", "{2*3}"}, 3, []string{"6", "6"}, true},
		{[]string{"{-np*-2}", "{7/-2}"}, 3, []string{"6", "-3"}, true},
		{[]string{"{2*(3+4)}", "-class", "S"}, 64, []string{"14", "-class", "S"}, false},
		{[]string{`{{"a":1}}`, "}}{np}{{"}, 8, []string{`{"a":1}`, "}8{"}, true},
		{nil, 8, []string{}, false},
	} {
		got, err := Args(tc.args).At(tc.np)
		if err != nil {
			t.Errorf("%q at np=%d: %v", tc.args, tc.np, err)
			continue
		}
		if !slices.Equal(got, tc.want) || got == nil {
			t.Errorf("%q at np=%d = %q, want %q", tc.args, tc.np, got, tc.want)
		}
		if weak := Args(tc.args).DependOnNP(); weak != tc.weak {
			t.Errorf("%q: DependOnNP = %v, want %v", tc.args, weak, tc.weak)
		}
		if err := Args(tc.args).Check(); err != nil {
			t.Errorf("%q: Check: %v", tc.args, err)
		}
	}
}

func TestArgsErrors(t *testing.T) {
	for _, tc := range []struct {
		args  []string
		np    int
		check string // error of Check, "" if none
		at    string // error of At(np)
	}{
		{[]string{"-n", "{np*}"}, 2, `argument 2 "{np*}": {np*}: expression ends early`, ""},
		{[]string{"{}"}, 2, `argument 1 "{}": {}: empty expression`, ""},
		{[]string{"{np"}, 2, `argument 1 "{np": unclosed { at byte 1 (write {{ for a literal brace)`, ""},
		{[]string{"x}"}, 2, `argument 1 "x}": unmatched } at byte 2 (write }} for a literal brace)`, ""},
		{[]string{"{n}"}, 2, `argument 1 "{n}": {n}: unexpected "n" at byte 1 (want np, an integer, - or ( )`, ""},
		{[]string{"{(np+1}"}, 2, `argument 1 "{(np+1}": {(np+1}: missing ) at byte 6`, ""},
		{[]string{"{np 2}"}, 2, `argument 1 "{np 2}": {np 2}: unexpected "2" at byte 4`, ""},
		{[]string{"{99999999999999999999}"}, 2, `argument 1 "{99999999999999999999}": {99999999999999999999}: constant 9999999999999999999… is too large`, ""},
		{[]string{"-a", "{8/(np-2)}"}, 2, "", `argument 2 "{8/(np-2)}": {8/(np-2)} divides by zero at np=2`},
		{[]string{"{np*4611686018427387904}"}, 2, "", `argument 1 "{np*4611686018427387904}": {np*4611686018427387904} overflows at np=2`},
	} {
		err := Args(tc.args).Check()
		if got := errText(err); got != tc.check {
			t.Errorf("%q: Check: %s, want %s", tc.args, got, tc.check)
		}
		want := tc.at
		if want == "" {
			want = tc.check
		}
		_, err = Args(tc.args).At(tc.np)
		if got := errText(err); !strings.HasPrefix(got, want) || want == "" {
			t.Errorf("%q: At(%d): %s, want %s", tc.args, tc.np, got, want)
		}
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

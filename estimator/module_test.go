package estimator

import (
	"strings"
	"testing"
)

// TestVersionMismatch checks when a user's module is refused for requiring
// another release of predict than the one running.
func TestVersionMismatch(t *testing.T) {
	for _, c := range []struct {
		used    moduleInfo
		own     string
		refused bool
	}{
		{moduleInfo{Version: "v0.3.0"}, "v0.3.0", false},
		{moduleInfo{Version: "v0.2.0"}, "v0.3.0", true},
		{moduleInfo{Version: "v0.3.1-0.20261120101010-abcdefabcdef"}, "v0.3.0", true},
		{moduleInfo{Version: "v0.2.0"}, "(devel)", false},      // a build in a checkout: cannot tell
		{moduleInfo{Version: "v0.2.0"}, "v0.3.0+dirty", false}, // a modified build: cannot tell
		{moduleInfo{Version: "v0.2.0", Replace: &moduleInfo{Dir: "/src/predict"}}, "v0.3.0", false},
		{moduleInfo{Version: "v0.2.0"}, "", false},
	} {
		err := versionMismatch("example.com/app", &c.used, c.own)
		if (err != nil) != c.refused {
			t.Errorf("module requires %+v, predict is %q: error %v, want refused=%v", c.used, c.own, err, c.refused)
			continue
		}
		if err != nil {
			for _, want := range []string{"example.com/app requires " + PredictModule + " " + c.used.Version, "this predict is " + c.own, "go get " + PredictModule + "@" + c.own} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
		}
	}
}

// TestRequiredPredict reads the predict module this repository's own
// module resolves: itself, as go list reports it.
func TestRequiredPredict(t *testing.T) {
	m, err := requiredPredict("..")
	if err != nil {
		t.Fatal(err)
	}
	if m.Path != PredictModule || m.Dir == "" {
		t.Errorf("go list -m %s in the checkout: %+v", PredictModule, m)
	}
}

package reduce

import (
	"strings"
	"testing"
)

// TestChecks reduces interp/testdata/checks: its checks of parameters
// against np (one inline, one in a helper whose caller passes np and
// flags) are evaluated, the check of its result (data) is assumed to pass
// and says so, and the messages of what ends the run are kept where they
// do not need data.
func TestChecks(t *testing.T) {
	_, _, rep := reduceProgram(t, "interp/testdata/checks", Options{})
	fns := map[string]FunctionReport{}
	for _, f := range rep.Functions {
		fns[f.ID] = f
	}
	body, require := fns["main$1"], fns["require"]
	var assumed []string
	for _, f := range rep.Functions {
		for _, d := range f.Opaque {
			if strings.Contains(d.Reason, "a check of the program") {
				assumed = append(assumed, d.Where+" "+d.What)
			}
		}
	}
	if len(assumed) != 1 || !strings.Contains(assumed[0], "sum[0]") {
		t.Errorf("checks assumed to pass: %q, want the check of the result only", assumed)
	}
	for _, param := range []string{"ok", "format", "args"} {
		if !strings.Contains(strings.Join(require.ControlParams, ","), param) {
			t.Errorf("require's control parameters %v lack %s (its check and message are evaluated)", require.ControlParams, param)
		}
	}
	if !strings.Contains(strings.Join(body.ControlVars, ","), "msg") {
		t.Errorf("main$1's control variables %v lack msg, the message of its Abort, panic and log.Fatal", body.ControlVars)
	}
}

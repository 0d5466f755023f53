package machine

import (
	"testing"

	"github.com/predict-tools/predict/commlib"
)

// TestCommlibEagerLimit checks that the presets that stand for the
// in-process runtime take its eager limit: machine keeps its own copy so
// as not to import the programs' runtime.
func TestCommlibEagerLimit(t *testing.T) {
	if commlibEagerLimit != commlib.DefaultEagerLimit {
		t.Errorf("commlibEagerLimit %d, commlib.DefaultEagerLimit %d", commlibEagerLimit, commlib.DefaultEagerLimit)
	}
	for _, name := range []string{"ideal", "local"} {
		m, err := Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		if m.Intra.EagerLimit != commlib.DefaultEagerLimit || m.Inter.EagerLimit != commlib.DefaultEagerLimit {
			t.Errorf("preset %s: eager limits %d and %d, want commlib's %d", name, m.Intra.EagerLimit, m.Inter.EagerLimit, commlib.DefaultEagerLimit)
		}
	}
}

// This file tests the catalog's entries for consistency. The test that
// checks them against the real commlib package lives in modelgen
// (catalog_test.go there): a test here that loads packages would make
// golang.org/x/tools a test dependency of every program's dependency, and
// go mod tidy would then write a go.sum into the user's module.

package catalog

import (
	"slices"
	"testing"
)

func TestEntries(t *testing.T) {
	seen, traced := map[string]bool{}, map[string]string{}
	var paraver []int
	for _, o := range All() {
		if seen[o.Name] {
			t.Errorf("%s: two entries", o.Name)
		}
		seen[o.Name] = true
		if other, ok := traced[o.TraceName()]; ok {
			t.Errorf("%s and %s have the same trace name %q", o.Name, other, o.TraceName())
		}
		traced[o.TraceName()] = o.Name
		if o.Class == 0 || o.Class.String() == "class?" {
			t.Errorf("%s: no class", o.Name)
		}
		for i, r := range o.Args {
			if r == 0 || r >= numRoles || r.String() == "role?" {
				t.Errorf("%s: argument %d has no role", o.Name, i)
			}
		}
		sends := o.Class == ClassSend || o.Class == ClassSendrecv
		if sends != (o.Protocol != "") || o.Protocol != "" && !slices.Contains(Protocols, o.Protocol) {
			t.Errorf("%s (%s): protocol %q", o.Name, o.Class, o.Protocol)
		}
		if (o.Class == ClassCollective) != (o.Shape != 0) {
			t.Errorf("%s (%s): shape %d", o.Name, o.Class, o.Shape)
		}
		if o.Class == ClassCollective && o.Shape != Barrier && o.Contribution() < 0 {
			t.Errorf("%s: a collective with data but no contribution buffer", o.Name)
		}
		if o.Paraver > 0 {
			paraver = append(paraver, o.Paraver)
		}
	}
	slices.Sort(paraver)
	for i, v := range paraver {
		if v != i+1 {
			t.Fatalf("Paraver values %v: want 1, 2, ... with no gap or repeat", paraver)
		}
	}
}

// TestExamples pins a few entries by hand, as the stages read them.
func TestExamples(t *testing.T) {
	scatter, _ := Lookup("Comm.Scatterv")
	if scatter.Contribution() != 4 || scatter.Arg(ArgRoot) != 5 || scatter.TraceName() != "Scatterv" {
		t.Errorf("Scatterv: contribution %d, root %d, trace name %q", scatter.Contribution(), scatter.Arg(ArgRoot), scatter.TraceName())
	}
	bcast, _ := Lookup("Comm.Bcast")
	if bcast.Contribution() != 1 || bcast.Shape != OneToAll {
		t.Errorf("Bcast: contribution %d, shape %d", bcast.Contribution(), bcast.Shape)
	}
	issend, ok := ByTraceName("Issend")
	if !ok || issend.Name != "Comm.Issend" || issend.Blocking || issend.Protocol != Sync {
		t.Errorf("Issend: %+v", issend)
	}
	if o, ok := ByTraceName("Pool.SetTask"); !ok || !o.Class.Thread() {
		t.Errorf("Pool.SetTask: %+v", o)
	}
	if _, ok := ByTraceName("compute"); ok {
		t.Errorf("compute is not a commlib operation")
	}
}

package machine

import (
	"slices"
	"strings"
	"testing"
)

func nodes(m *Machine, np int) []int {
	out := make([]int, np)
	for r := range np {
		out[r] = m.NodeOf(r, np)
	}
	return out
}

func TestMapping(t *testing.T) {
	m := testMachine() // 4 ranks per node
	m.RanksPerNode = 3
	for _, c := range []struct {
		mapping Mapping
		np      int
		want    []int
	}{
		{Block, 8, []int{0, 0, 0, 1, 1, 1, 2, 2}},
		{Cyclic, 8, []int{0, 1, 2, 0, 1, 2, 0, 1}}, // 3 nodes used
		{Block, 2, []int{0, 0}},
		{Cyclic, 2, []int{0, 0}}, // one node holds the job
		{Cyclic, 4, []int{0, 1, 0, 1}},
	} {
		m.Mapping = c.mapping
		if got := nodes(m, c.np); !slices.Equal(got, c.want) {
			t.Errorf("%s, np=%d: nodes %v, want %v", c.mapping, c.np, got, c.want)
		}
		if got, want := m.NodesUsed(c.np), slices.Max(c.want)+1; got != want {
			t.Errorf("%s, np=%d: NodesUsed = %d, want %d", c.mapping, c.np, got, want)
		}
	}
	m.Mapping = Block
	if !m.SameNode(0, 2, 8) || m.SameNode(2, 3, 8) {
		t.Errorf("block, 3 per node: want 0 and 2 together, 2 and 3 apart")
	}
	m.Mapping = Cyclic
	if !m.SameNode(0, 3, 8) || m.SameNode(0, 1, 8) {
		t.Errorf("cyclic over 3 nodes: want 0 and 3 together, 0 and 1 apart")
	}
}

func TestMappingNoLimit(t *testing.T) {
	m := testMachine()
	m.Nodes, m.RanksPerNode = 3, 0
	if got, want := nodes(m, 7), []int{0, 0, 0, 1, 1, 2, 2}; !slices.Equal(got, want) {
		t.Errorf("block over 3 nodes, no limit, np=7: %v, want %v", got, want)
	}
	m.Mapping = Cyclic
	if got, want := nodes(m, 7), []int{0, 1, 2, 0, 1, 2, 0}; !slices.Equal(got, want) {
		t.Errorf("cyclic over 3 nodes, no limit, np=7: %v, want %v", got, want)
	}
	// One node, no limit: the local preset.
	m.Nodes, m.Mapping = 1, Block
	if got := nodes(m, 64); slices.Max(got) != 0 || m.NodesUsed(64) != 1 || m.CheckNP(1<<20) != nil {
		t.Errorf("one node, no limit: every rank on node 0 and any np fits")
	}
}

func TestMappingExplicit(t *testing.T) {
	m := testMachine()
	m.Mapping, m.Placement = Explicit, []int{2, 0, 2, 1}
	if got, want := nodes(m, 4), []int{2, 0, 2, 1}; !slices.Equal(got, want) {
		t.Errorf("explicit: %v, want %v", got, want)
	}
	if !m.SameNode(0, 2, 4) || m.SameNode(0, 1, 4) {
		t.Errorf("explicit: want 0 and 2 together, 0 and 1 apart")
	}
	if m.NodesUsed(4) != 3 || m.NodesUsed(2) != 3 {
		t.Errorf("explicit: NodesUsed(4) = %d, NodesUsed(2) = %d; want 3 (nodes 0..2)", m.NodesUsed(4), m.NodesUsed(2))
	}
	if err := m.CheckNP(5); err == nil || !strings.Contains(err.Error(), "placement lists 4") {
		t.Errorf("CheckNP(5) with 4 placements: %v", err)
	}
	if m.NodeOf(5, 6) != 0 { // beyond the list: repeats it, no panic
		t.Errorf("NodeOf beyond the placement list = %d, want Placement[1] = 0", m.NodeOf(5, 6))
	}
}

func TestCheckNP(t *testing.T) {
	m := testMachine()
	m.Nodes = 4 // 16 slots
	if err := m.CheckNP(16); err != nil {
		t.Errorf("16 ranks on 4 nodes × 4: %v", err)
	}
	if err := m.CheckNP(17); err == nil || !strings.Contains(err.Error(), "need 5 nodes, it has 4") {
		t.Errorf("17 ranks on 4 nodes × 4: %v", err)
	}
	if err := m.CheckNP(0); err == nil {
		t.Errorf("0 ranks: no error")
	}
	m.Nodes = 0
	if err := m.CheckNP(1 << 20); err != nil {
		t.Errorf("unlimited nodes: %v", err)
	}
}

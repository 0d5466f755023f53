// This file defines the search for the model node whose share of the time
// grows fastest across a sweep.

package scale

import (
	"maps"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"
)

// A Growth is a model node whose share of the time changes across a sweep.
//
// The share of a node at one process count is its time summed over ranks
// divided by the machine's time np × Time (the whole the breakdown's
// shares are of): the fraction of the machine's time that goes to the node. Perfectly parallel
// work keeps its share; serial work, communication and waiting that grow
// with np gain share.
type Growth struct {
	Node       NodeTime `json:"node"`        // at the largest np where it was seen
	FirstShare float64  `json:"first_share"` // share at the smallest np
	LastShare  float64  `json:"last_share"`  // share at the largest np
	// PerDoubling is the least-squares slope of the share against log₂ np:
	// how much share the node gains each time np doubles.
	PerDoubling float64 `json:"per_doubling"`
}

// fastestGrowing returns the node whose share grows fastest (largest
// PerDoubling, then smallest ID), or nil if no share grows, or there are
// fewer than two points. A node missing from a point has no time there.
func fastestGrowing(points []Point) *Growth {
	if len(points) < 2 {
		return nil
	}
	type series struct {
		node   NodeTime  // at the largest np where it was seen
		seenAt int       // index of that point
		shares []float64 // by point
	}
	byID := make(map[string]*series)
	for i, p := range points {
		total := float64(p.NP) * float64(p.machineTime())
		for _, n := range p.Nodes {
			s := byID[n.ID]
			if s == nil {
				s = &series{shares: make([]float64, len(points))}
				byID[n.ID] = s
			}
			if total > 0 {
				s.shares[i] += float64(n.Time) / total
			}
			if s.seenAt == i && s.node.ID == n.ID {
				// The same node listed twice in one point: add up.
				s.node.Time += n.Time
				s.node.Freq += n.Freq
			} else {
				s.node, s.seenAt = n, i
			}
		}
	}
	x := make([]float64, len(points))
	for i, p := range points {
		x[i] = math.Log2(float64(p.NP))
	}
	var best *Growth
	for _, id := range slices.Sorted(maps.Keys(byID)) {
		s := byID[id]
		_, slope := stat.LinearRegression(x, s.shares, nil, false)
		if !(slope > 0) || best != nil && slope <= best.PerDoubling {
			continue
		}
		best = &Growth{
			Node:        s.node,
			FirstShare:  s.shares[0],
			LastShare:   s.shares[len(s.shares)-1],
			PerDoubling: slope,
		}
	}
	return best
}

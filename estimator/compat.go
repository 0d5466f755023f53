// This file defines the old names of the profile format, which moved to
// package profile, for the commit that renames their uses.

package estimator

import "github.com/predict-tools/predict/profile"

type (
	ProfileFile   = profile.File
	FragmentStats = profile.FragmentStats
	LoopStats     = profile.LoopStats
	DecisionStats = profile.DecisionStats
	RankTrips     = profile.RankTrips
	RankOutcomes  = profile.RankOutcomes
	TripCount     = profile.TripCount
	Overhead      = profile.Overhead
	FragmentKind  = profile.FragmentKind
)

const (
	ProfileFormat  = profile.Format
	ProfileVersion = profile.Version
	MaxProfileTime = profile.MaxTime
	FragSegment    = profile.FragSegment
	FragLoop       = profile.FragLoop
	FragBranch     = profile.FragBranch
)

var (
	ReadProfile = profile.Read
	ContentHash = profile.ContentHash
)

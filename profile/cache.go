// This file defines the cache of the profiles that predict run and scale
// measure when no profile is given: where they are kept, under which key,
// and which measurements are not kept.

package profile

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/predict-tools/predict/model"
)

// Cache is a directory of profiles measured by the automatic timing pass,
// one file per [Key]. It reports what it found or did rather than
// printing it: the caller words it (and names its own flags).
type Cache struct {
	Dir string
}

// DefaultCache is the cache in the user's cache directory
// (predict/profiles under [CacheRoot]).
func DefaultCache() Cache {
	return Cache{Dir: filepath.Join(CacheRoot(), "profiles")}
}

// CacheRoot is where predict keeps what it measured once for later runs
// (profiles, this machine's calibration): predict under [os.UserCacheDir],
// or under the temporary directory where the system names none.
func CacheRoot() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	return filepath.Join(dir, "predict")
}

// Key is what a cached profile was measured for: the package and its
// sources, the ranks and arguments of the run, and the version of the
// timing pass. The probes' data format and the pass's own version are
// part of it: a profile of an older timing pass (another clock, other
// fragments or decisions) is not reused.
type Key struct {
	Package      string
	ContentHash  string
	NP           int
	Args         []string
	ProbeVersion int // the probes' data format (probe.RawVersion)
	PassVersion  int // the timing pass (estimator.PassVersion)
	// Reduction identifies the reduced model the timing pass measured for
	// (a hash of reduce.Report's text): a predict whose reduction decides
	// otherwise — a decision computed where it was recorded, a loop
	// iterated where it was collapsed — measures again instead of replaying
	// records its model no longer matches. Part of the path when set.
	Reduction string
	// Launcher is the MPI launcher the timing pass ran under (File's
	// Launcher; "" in one process): part of the path only when set.
	Launcher string
	// ArgsAt, when set, gives the arguments at another np (those in np
	// expanded there): a profile whose record at another np (Replays) ran
	// other arguments is not reused. Not part of the path.
	ArgsAt func(np int) ([]string, error)
}

// Path returns the file of the profile cached under k. The name hashes
// the key; its form is fixed (TestCachePath), so that a new predict finds
// the profiles an older one cached.
func (c Cache) Path(k Key) string {
	in := fmt.Appendf(nil, "%s\x00%s\x00%d\x00%q\x00probe-v%d\x00pass-v%d",
		k.Package, k.ContentHash, k.NP, k.Args, k.ProbeVersion, k.PassVersion)
	if k.Launcher != "" {
		in = fmt.Appendf(in, "\x00launcher=%s", k.Launcher)
	}
	if k.Reduction != "" {
		in = fmt.Appendf(in, "\x00reduction=%s", k.Reduction)
	}
	sum := sha256.Sum256(in)
	return filepath.Join(c.Dir, hex.EncodeToString(sum[:12])+".json")
}

// Found is what [Cache.Load] found.
type Found int

const (
	// Missing: no usable profile under the key: none, an unreadable or
	// invalid one, or one of another package, other sources or nodes
	// the model does not have. Measure.
	Missing Found = iota
	// Hit: the profile cached under the key.
	Hit
	// CachedUnderLoad: a profile of these sources, measured while other
	// processes took cores its ranks needed. Measure again.
	CachedUnderLoad
)

// Load returns the profile cached under k, checked against the package,
// the content hash of k and the model of the program, and what it found.
// The profile is nil when Missing; for CachedUnderLoad it tells how loaded
// (OtherCores).
func (c Cache) Load(k Key, prog *model.Program) (*File, Found) {
	p, err := Read(c.Path(k))
	switch {
	case err != nil || p.Check(k.Package, k.ContentHash) != nil || p.CheckNodes(prog) != nil || !k.replaysMatch(p) || p.Launcher != k.Launcher:
		return nil, Missing
	case p.MeasuredUnderLoad():
		return p, CachedUnderLoad
	}
	return p, Hit
}

// replaysMatch reports whether p's records at other np ran the arguments
// k gives there.
func (k Key) replaysMatch(p *File) bool {
	if k.ArgsAt == nil {
		return true
	}
	for _, r := range p.Replays {
		args, err := k.ArgsAt(r.NP)
		if err != nil || !slices.Equal(args, r.Args) {
			return false
		}
	}
	return true
}

// Stored is what [Cache.Store] did.
type Stored int

const (
	// Cached: written to [Cache.Path].
	Cached Stored = iota
	// Disturbed: not kept: the runs disagree under load
	// ([File.CheckDisturbance] says how).
	Disturbed
	// UnderLoad: not kept: measured while other processes took cores its
	// ranks needed ([File.MeasuredUnderLoad]).
	UnderLoad
	// NotWritten: the cache could not be written (a read-only or full
	// disk): the cache only saves time, so this is no error.
	NotWritten
)

// Store keeps p in the cache under k, unless it is a measurement not to
// keep: one whose runs a disturbance refuses, or one measured under load
// (a profile read back from the cache is used without its measurement
// being repeated, so it must be one to trust). The error is for a
// profile that cannot be encoded, which no one can use.
func (c Cache) Store(k Key, p *File) (Stored, error) {
	if p.CheckDisturbance() != nil {
		return Disturbed, nil
	}
	if p.MeasuredUnderLoad() {
		return UnderLoad, nil
	}
	var buf bytes.Buffer
	if err := p.Write(&buf); err != nil {
		return NotWritten, err
	}
	path := c.Path(k)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return NotWritten, nil
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return NotWritten, nil
	}
	return Cached, nil
}

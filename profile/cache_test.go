package profile

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/predict-tools/predict/model"
)

// appModel is the model validProfile's nodes belong to.
func appModel() *model.Program {
	return &model.Program{Package: "example.com/app", Functions: []*model.Function{{ID: "main$1", Tree: &model.Node{
		ID: "main$1/seq", Kind: model.KindSeq, Children: []*model.Node{{ID: "main$1/loop@+1:1"}, {ID: "main$1/if@+2:1"}},
	}}}}
}

func cacheKey() Key {
	return Key{Package: "example.com/app", ContentHash: "sha256:abc", NP: 2, Args: []string{"-class", "S"}, ProbeVersion: 3, PassVersion: 2}
}

// TestCachePath pins the name of a cached profile: a predict that names
// it otherwise no longer finds the profiles cached before it.
func TestCachePath(t *testing.T) {
	c := Cache{Dir: "/cache"}
	if got, want := c.Path(cacheKey()), filepath.Join("/cache", "fe4e4f619a3a32cbd0c2be3d.json"); got != want {
		t.Errorf("path %s, want %s", got, want)
	}
	k := Key{Package: "example.com/app", ContentHash: "sha256:abc", NP: 1, ProbeVersion: 3, PassVersion: 2}
	if got, want := c.Path(k), filepath.Join("/cache", "1c8886396b517a0c024639f5.json"); got != want {
		t.Errorf("no arguments: path %s, want %s", got, want)
	}
	// Another reduction of the same sources is another profile.
	r1, r2 := k, k
	r1.Reduction, r2.Reduction = "sha256:1", "sha256:2"
	if c.Path(r1) == c.Path(k) || c.Path(r1) == c.Path(r2) {
		t.Errorf("the reduction is not part of the path: %s, %s, %s", c.Path(k), c.Path(r1), c.Path(r2))
	}
}

// TestCache stores profiles in a real directory and reads them back: a
// profile comes back as it was stored, under its own key only; one of
// other sources or nodes is missing; one measured under load or disturbed
// is not stored, and one cached under load is not used.
func TestCache(t *testing.T) {
	c := Cache{Dir: filepath.Join(t.TempDir(), "predict", "profiles")}
	prog, k := appModel(), cacheKey()
	p := validProfile()
	p.ContentHash = k.ContentHash
	if q, found := c.Load(k, prog); found != Missing || q != nil {
		t.Fatalf("empty cache: %v, %v", found, q)
	}
	if stored, err := c.Store(k, p); stored != Cached || err != nil {
		t.Fatalf("store: %v, %v", stored, err)
	}
	q, found := c.Load(k, prog)
	if found != Hit || !reflect.DeepEqual(q, p) {
		t.Fatalf("load: %v, %+v, want %+v", found, q, p)
	}

	// Another key, whatever in it differs, finds nothing: other sources,
	// ranks, arguments, a newer probe format or timing pass.
	for name, edit := range map[string]func(k *Key){
		"sources":   func(k *Key) { k.ContentHash = "sha256:def" },
		"np":        func(k *Key) { k.NP = 4 },
		"arguments": func(k *Key) { k.Args = []string{"-class", "W"} },
		"probes":    func(k *Key) { k.ProbeVersion++ },
		"pass":      func(k *Key) { k.PassVersion++ },
		"launcher":  func(k *Key) { k.Launcher = "mpirun -np 2" },
	} {
		other := cacheKey()
		edit(&other)
		if q, found := c.Load(other, prog); found != Missing || q != nil {
			t.Errorf("other %s: %v, %v", name, found, q)
		}
	}
	// A file under the key that is not of the key's sources, package or
	// model (copied there, or a hash collision) is not used either.
	copyTo := func(k Key) {
		data, err := os.ReadFile(c.Path(cacheKey()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(c.Path(k), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	stale := cacheKey()
	stale.ContentHash = "sha256:def"
	copyTo(stale)
	if _, found := c.Load(stale, prog); found != Missing {
		t.Errorf("a profile of other sources under the key: %v", found)
	}
	launched := cacheKey()
	launched.Launcher = "mpirun -np 2"
	copyTo(launched)
	if _, found := c.Load(launched, prog); found != Missing {
		t.Errorf("a profile measured in one process under a launcher's key: %v", found)
	}
	foreign := cacheKey()
	foreign.Package = "example.com/other"
	copyTo(foreign)
	if _, found := c.Load(foreign, prog); found != Missing {
		t.Errorf("a profile of another package under the key: %v", found)
	}
	if _, found := c.Load(k, &model.Program{Package: "example.com/app", Functions: []*model.Function{{Tree: &model.Node{ID: "main$1/seq"}}}}); found != Missing {
		t.Errorf("a profile of nodes the model lacks: %v", found)
	}
	if err := os.WriteFile(c.Path(k), []byte(`{"format": "predict-profile", "version": 1, "np": `), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, found := c.Load(k, prog); found != Missing {
		t.Errorf("a truncated file: %v", found)
	}

	// Measured under load (1.5 other cores on 2 CPUs, 2 ranks): used by
	// the caller, never stored.
	loaded := validProfile()
	loaded.ContentHash, loaded.CPUs, loaded.OtherCores = k.ContentHash, 2, 1.5
	os.Remove(c.Path(k))
	if stored, err := c.Store(k, loaded); stored != UnderLoad || err != nil {
		t.Errorf("under load: %v, %v", stored, err)
	}
	if _, err := os.Stat(c.Path(k)); !os.IsNotExist(err) {
		t.Errorf("a profile measured under load was written: %v", err)
	}
	// One cached under load (by an older predict) is found, and not used.
	f, err := os.Create(c.Path(k))
	if err != nil {
		t.Fatal(err)
	}
	if err := loaded.Write(f); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if q, found := c.Load(k, prog); found != CachedUnderLoad || q == nil || q.OtherCores != 1.5 {
		t.Errorf("cached under load: %v, %v", found, q)
	}

	// Disturbed under load (a probed run 3× its plain one): not stored.
	disturbed := validProfile()
	disturbed.ContentHash, disturbed.PlainRunPS, disturbed.RunPS = k.ContentHash, 30e9, 90e9
	os.Remove(c.Path(k))
	if stored, err := c.Store(k, disturbed); stored != Disturbed || err != nil {
		t.Errorf("disturbed: %v, %v", stored, err)
	}
	if _, err := os.Stat(c.Path(k)); !os.IsNotExist(err) {
		t.Errorf("a disturbed profile was written: %v", err)
	}

	// A cache that cannot be written: no error, not stored.
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if stored, err := (Cache{Dir: filepath.Join(file, "profiles")}).Store(k, p); stored != NotWritten || err != nil {
		t.Errorf("unwritable cache: %v, %v", stored, err)
	}
	// A profile JSON cannot hold: an error, not stored.
	p.ErrorRel = nan()
	if stored, err := c.Store(k, p); stored != NotWritten || err == nil {
		t.Errorf("a NaN: %v, %v", stored, err)
	}
}

// TestCacheReplayArgs: a cached profile whose record at another np ran
// other arguments than the key's at that np ("-n {np*1000}" at np = 1
// against a literal "-n 2000") is not reused; one whose record ran them is.
func TestCacheReplayArgs(t *testing.T) {
	c := Cache{Dir: filepath.Join(t.TempDir(), "profiles")}
	prog, k := appModel(), cacheKey()
	p := validProfile()
	p.ContentHash = k.ContentHash
	p.Replays = []Replay{{NP: 1, Args: []string{"-class", "S", "-n", "1000"}}}
	if stored, err := c.Store(k, p); stored != Cached || err != nil {
		t.Fatalf("store: %v, %v", stored, err)
	}
	at := func(n string) func(int) ([]string, error) {
		return func(int) ([]string, error) { return []string{"-class", "S", "-n", n}, nil }
	}
	k.ArgsAt = at("1000")
	if _, found := c.Load(k, prog); found != Hit {
		t.Errorf("same arguments at np=1: %v, want a hit", found)
	}
	k.ArgsAt = at("2000")
	if q, found := c.Load(k, prog); found != Missing || q != nil {
		t.Errorf("other arguments at np=1: %v, want missing", found)
	}
}

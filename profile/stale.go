// This file defines the content hash of a program's sources and the check
// that keeps a profile of other sources, or of another package, from being
// used.

package profile

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/predict-tools/predict/modelgen"
)

// ContentHash hashes the sources of the loaded packages (and the module's
// go.mod): a profile is valid only for the sources it was measured on.
func ContentHash(l *modelgen.Loaded) (string, error) {
	var files []string
	for _, p := range l.Packages {
		for _, f := range l.Syntax[p.Pkg] {
			files = append(files, l.Prog.Fset.File(f.Pos()).Name())
		}
	}
	slices.Sort(files)
	if l.ModuleDir != "" {
		files = append(files, filepath.Join(l.ModuleDir, "go.mod"))
	}
	h := sha256.New()
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			return "", err
		}
		rel := name
		if r, err := filepath.Rel(l.ModuleDir, name); err == nil {
			rel = filepath.ToSlash(r)
		}
		fmt.Fprintf(h, "%s %d\n", rel, len(data))
		h.Write(data)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// Check reports a profile measured on other sources or another package
// than the ones given.
func (p *File) Check(pkg, contentHash string) error {
	switch {
	case p.Package != pkg:
		return fmt.Errorf("profile of package %s, not of %s", p.Package, pkg)
	case p.ContentHash != contentHash:
		return fmt.Errorf("stale profile: the sources of %s changed since it was measured (%s); run predict profile again",
			pkg, p.Created)
	}
	return nil
}

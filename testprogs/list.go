// This file defines the list of test programs, for the tests of every stage.

package testprogs

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// Dirs returns the directories of the test programs below root (the
// testprogs directory), relative to it with slashes: "stencil",
// "patterns/latesender", ... A test program is a directory holding a
// main.go; internal holds shared code, not programs.
func Dirs(root string) ([]string, error) {
	var dirs []string
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "internal" {
			return fs.SkipDir
		}
		if !d.IsDir() && d.Name() == "main.go" {
			rel, err := filepath.Rel(root, filepath.Dir(path))
			if err != nil {
				return err
			}
			dirs = append(dirs, filepath.ToSlash(rel))
		}
		return nil
	})
	slices.Sort(dirs)
	return dirs, err
}

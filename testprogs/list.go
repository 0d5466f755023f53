// This file defines the list of test programs, for the tests of every stage.

package testprogs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// CorpusDir is the directory, below testprogs, of the accuracy corpus:
// programs written to judge the predictor's accuracy on code it was not
// tuned on.
const CorpusDir = "corpus"

// Dirs returns the directories of the test programs below root (the
// testprogs directory), relative to it with slashes: "stencil",
// "patterns/latesender", ... A test program is a directory holding a
// main.go; internal holds shared code, not programs. The accuracy corpus
// (root/corpus, [CorpusDir]) is not part of them: its programs judge the
// predictor (predict validate) rather than test its stages; list them with
// Dirs(filepath.Join(root, CorpusDir)).
func Dirs(root string) ([]string, error) {
	var dirs []string
	corpus := filepath.Join(root, CorpusDir)
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			if path == root && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipAll // no programs there
			}
			return err
		}
		if d.IsDir() && (d.Name() == "internal" || path == corpus) {
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

// AllDirs returns the test programs below root (as Dirs) and then the
// programs of the accuracy corpus, as "corpus/NAME".
func AllDirs(root string) ([]string, error) {
	dirs, err := Dirs(root)
	if err != nil {
		return nil, err
	}
	corpus, err := Dirs(filepath.Join(root, CorpusDir))
	if err != nil {
		return nil, err
	}
	for _, d := range corpus {
		dirs = append(dirs, CorpusDir+"/"+d)
	}
	return dirs, nil
}

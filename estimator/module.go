// This file defines the check that the predict packages compiled into a
// user's program (the probes, the run clock, commlib) are those of this
// predict: they come from the version of predict that the program's own
// module requires, not from this binary.

package estimator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"runtime/debug"
	"strings"

	"github.com/predict-tools/predict/modelgen"
)

// PredictModule is the module path of predict.
const PredictModule = "github.com/predict-tools/predict"

// checkPredictVersion refuses to instrument a program whose module
// requires another release of predict than this one: the probes of that
// release would not write what this one reads. Where either side is not a
// release (a development build, a replace directive), it cannot tell and
// lets the raw data's own version decide.
func checkPredictVersion(l *modelgen.Loaded) error {
	if l.Module == PredictModule || l.ModuleDir == "" {
		return nil
	}
	used, err := requiredPredict(l.ModuleDir)
	if err != nil {
		return fmt.Errorf("module %s: %v", l.Module, err)
	}
	return versionMismatch(l.Module, used, ownVersion())
}

// versionMismatch is checkPredictVersion's decision, for module, which
// uses predict as used, and this predict at version own.
func versionMismatch(module string, used *moduleInfo, own string) error {
	if used.Replace != nil || !isRelease(used.Version) || !isRelease(own) || used.Version == own {
		return nil
	}
	return fmt.Errorf("module %s requires %s %s, but this predict is %s: the probes compiled into your program come from the version your module requires, and must be this one's.\n"+
		"Either use the predict of your module (go get -tool %s/cmd/predict@%s, then go tool predict ...),\n"+
		"or require this one (go get %s@%s)", module, PredictModule, used.Version, own, PredictModule, used.Version, PredictModule, own)
}

// moduleInfo is what go list -m -json says of a module.
type moduleInfo struct {
	Path    string
	Version string
	Dir     string
	Replace *moduleInfo
}

// requiredPredict returns the predict module that the module in dir uses.
func requiredPredict(dir string) (*moduleInfo, error) {
	cmd := exec.Command("go", "list", "-mod=readonly", "-m", "-json", PredictModule)
	cmd.Dir = dir
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("it does not require %s (go get %s): %s", PredictModule, PredictModule, strings.TrimSpace(stderr.String()))
	}
	var m moduleInfo
	if err := json.Unmarshal(out.Bytes(), &m); err != nil {
		return nil, fmt.Errorf("go list -m %s: %v", PredictModule, err)
	}
	return &m, nil
}

// ownVersion returns the version of predict this binary was built from:
// a release or pseudo-version for go install …@version and go tool, or
// "(devel)" for a build inside a checkout.
func ownVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	if info.Main.Path == PredictModule {
		return info.Main.Version
	}
	for _, d := range info.Deps {
		if d.Path == PredictModule {
			if d.Replace != nil {
				return "(devel)"
			}
			return d.Version
		}
	}
	return ""
}

// isRelease reports a version string naming one published version.
func isRelease(v string) bool {
	return strings.HasPrefix(v, "v") && !strings.HasSuffix(v, "+dirty")
}

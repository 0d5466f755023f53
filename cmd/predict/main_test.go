package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/predict-tools/predict/model"
	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"predict": func() { os.Exit(Main(os.Args[1:], os.Stdout, os.Stderr)) },
	})
}

// TestScript runs testdata/script/*.txtar; UPDATE=1 rewrites their
// expected files. Scripts find the module root in $MODROOT.
func TestScript(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	goEnv := goEnvironment(t)
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		UpdateScripts:       os.Getenv("UPDATE") != "",
		RequireExplicitExec: true,
		Setup: func(e *testscript.Env) error {
			e.Setenv("MODROOT", root)
			// The profile and machine caches in the script's own
			// directory: HOME is gone, and a cache must not outlive the
			// test or be shared between scripts.
			e.Setenv("XDG_CACHE_HOME", e.WorkDir+"/.cache")
			for _, kv := range goEnv {
				k, v, _ := strings.Cut(kv, "=")
				e.Setenv(k, v)
			}
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"modeljson":     cmdModelJSON,
			"amdahlprofile": cmdAmdahlProfile,
			"unitprofile":   cmdUnitProfile,
			"profilehere":   cmdProfileHere,
			"jsonstyle":     cmdJSONStyle,
		},
	})
}

// goEnvironment returns the settings the go command needs to load
// packages offline from the test's environment, whose HOME is gone.
func goEnvironment(t *testing.T) []string {
	names := []string{"GOCACHE", "GOMODCACHE", "GOPATH", "GOFLAGS", "GOPROXY", "GOTOOLCHAIN", "GONOSUMDB", "GOSUMDB"}
	out, err := exec.Command("go", append([]string{"env"}, names...)...).Output()
	if err != nil {
		t.Fatalf("go env: %v", err)
	}
	values := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(values) != len(names) {
		t.Fatalf("go env printed %d lines for %d names", len(values), len(names))
	}
	var env []string
	for i, name := range names {
		env = append(env, name+"="+values[i])
	}
	return env
}

// cmdModelJSON is the script command "modeljson FILE [FUNC...]": FILE
// holds a model that model.ReadJSON accepts, with the functions FUNC.
func cmdModelJSON(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: modeljson FILE [FUNC...]")
	}
	p, err := model.ReadJSON(strings.NewReader(ts.ReadFile(args[0])))
	ts.Check(err)
	for _, id := range args[1:] {
		if p.Func(id) == nil {
			ts.Fatalf("%s: no function %s", args[0], id)
		}
	}
}

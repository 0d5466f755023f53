// This file defines what predict run and predict scale share: the program
// prepared once, its profile (given, cached, or measured now), and the
// machine (given, or this machine's calibration).

package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/predict-tools/predict/estimator"
	"github.com/predict-tools/predict/estimator/probe"
	"github.com/predict-tools/predict/interp"
	"github.com/predict-tools/predict/machine"
	"github.com/predict-tools/predict/profile"
	"github.com/predict-tools/predict/scale"
	"github.com/spf13/cobra"
)

// predictFlags are the flags of run and scale, and what setup found.
type predictFlags struct {
	machine string
	profile string
	profNP  int
	runs    int
	threads int
	noCache bool
	// allowUnsupported: measure and predict a program whose kept code
	// holds what the interpreter does not support (said, not refused).
	allowUnsupported bool
	// progArgs are the program's arguments as given: "{expr}" in them
	// depends on np (scale.Args).
	progArgs []string
	// launch is --launcher as given; realRuns says that the command's
	// real runs (validate's) go under it too, not only the timing pass.
	launch   string
	realRuns bool
	// noNoise and noiseSeed: --no-noise, --noise-seed.
	noNoise   bool
	noiseSeed uint64

	// Set by setup: where the profile came from, the machine file ("" for
	// a preset), and the launcher (nil: none).
	profileUsed string
	machineFile string
	launcher    *estimator.Launcher
}

// argsAt returns the program's arguments at np.
func (f *predictFlags) argsAt(np int) ([]string, error) {
	args, err := scale.Args(f.progArgs).At(np)
	if err != nil {
		return nil, fmt.Errorf("program arguments at np=%d: %v", np, err)
	}
	return args, nil
}

// machineInfo describes the machine for the record of a sweep.
func (f *predictFlags) machineInfo(m *machine.Machine) *machine.Info { return m.Info(f.machineFile) }

func (f *predictFlags) add(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.machine, "machine", "", "target machine: a preset ("+strings.Join(machine.PresetNames(), ", ")+") or a machine file (default: this machine's calibration, measured on first use and cached)")
	fl.StringVar(&f.profile, "profile", "", "profile `FILE` from predict profile (default: measured now on this machine and cached)")
	fl.IntVar(&f.profNP, "profile-np", 2, "ranks of the automatic timing pass")
	fl.IntVar(&f.runs, "profile-runs", estimator.DefaultRuns, "runs of each program (plain and probed) in the automatic timing pass")
	fl.BoolVar(&f.noCache, "no-cache", false, "run the timing pass even when a cached profile exists")
	fl.BoolVar(&f.noNoise, "no-noise", false, "leave the machine's noise out: every burst of compute takes its mean time, and ranks doing the same work never wait for each other")
	fl.Uint64Var(&f.noiseSeed, "noise-seed", interp.DefaultNoiseSeed, "seed of the ranks' draws of the machine's noise (any value)")
	fl.IntVar(&f.threads, "threads", 0, "threads per rank: what commlib.Threads returns in the model (default: the program's own choice)")
	what := "the automatic timing pass"
	if f.realRuns {
		what = "the real runs and the automatic timing pass"
	}
	fl.StringVar(&f.launch, "launcher", "", "run "+what+" under MPI with this launcher `COMMAND` (e.g. 'mpirun -np 2'; its -np/-n/-c sets the timing pass's ranks), built with -tags mpi")
	fl.BoolVar(&f.allowUnsupported, "allow-unsupported", false, "measure and predict even when the model holds constructs the interpreter does not support (a go statement running a function outside the program, ...): a run that reaches one stops there")
}

// setup prepares the program, its profile and the machine. Notes go to
// log.
func (f *predictFlags) setup(cmd *cobra.Command, pkg string, log io.Writer) (*interp.Program, *profile.File, *machine.Machine, error) {
	if err := checkDir(pkg); err != nil {
		return nil, nil, nil, err
	}
	if cmd.Flags().Changed("threads") && f.threads < 1 {
		return nil, nil, nil, usagef(cmd, "--threads %d: want at least 1 thread per rank", f.threads)
	}
	if f.runs < 1 {
		return nil, nil, nil, usagef(cmd, "--profile-runs %d: want at least 1 run", f.runs)
	}
	if f.profNP < 1 {
		return nil, nil, nil, usagef(cmd, "--profile-np %d: want at least 1 rank", f.profNP)
	}
	if err := scale.Args(f.progArgs).Check(); err != nil {
		return nil, nil, nil, usagef(cmd, "program arguments: %v", err)
	}
	if cmd.Flags().Changed("launcher") {
		if f.profile != "" && !f.realRuns {
			return nil, nil, nil, usagef(cmd, "--launcher %q and --profile %s: the launcher runs the timing pass, which --profile replaces; give one of them", f.launch, f.profile)
		}
		var err error
		if f.launcher, f.profNP, err = launcherFlag(cmd, f.launch, "profile-np", f.profNP); err != nil {
			return nil, nil, nil, err
		}
	}
	// A machine given is read now, its errors before any work; this
	// machine's calibration (no --machine) once the program and its
	// profile are ready: a run that fails before pays nothing for it.
	var m *machine.Machine
	var err error
	if f.machine != "" {
		if m, err = machine.Resolve(f.machine); err != nil {
			return nil, nil, nil, usagef(cmd, "--machine %s: %v", f.machine, err)
		}
		if !slices.Contains(machine.PresetNames(), f.machine) || strings.ContainsAny(f.machine, `/\.`) {
			// machine.Resolve reads a file unless the name is a preset's.
			f.machineFile = f.machine
		}
	}
	var prog *interp.Program
	err = estimator.Step(log, "loading "+pkg+" and building its model", func() error {
		var err error
		prog, err = interp.Prepare(".", pkg)
		return err
	})
	if err != nil {
		return nil, nil, nil, err
	}
	hash, err := profile.ContentHash(prog.Loaded)
	if err != nil {
		return nil, nil, nil, err
	}
	var prof *profile.File
	if f.profile != "" {
		if prof, err = profile.Read(f.profile); err != nil {
			return nil, nil, nil, err
		}
		if err := prof.Check(prog.Model.Package, hash); err != nil {
			return nil, nil, nil, fmt.Errorf("--profile %s: %v", f.profile, err)
		}
		if err := prof.CheckNodes(prog.Model); err != nil {
			return nil, nil, nil, fmt.Errorf("--profile %s: %v", f.profile, err)
		}
		f.profileUsed = f.profile
		warnProfile(log, prof)
		return f.withMachine(prog, prof, m, log)
	}
	// What the interpreter does not support is said before the timing
	// pass, not after it.
	list, err := prog.Unsupported()
	if err != nil {
		return nil, nil, nil, err
	}
	if len(list) > 0 {
		if !f.allowUnsupported {
			return nil, nil, nil, &interp.UnsupportedError{Package: prog.Model.Package, List: list}
		}
		for _, u := range list {
			fmt.Fprintf(log, "WARNING: not supported by the interpreter (--allow-unsupported): %s\n", u)
		}
	}
	if prof, err = f.cachedProfile(pkg, prog, hash, log); err != nil {
		return nil, nil, nil, err
	}
	return f.withMachine(prog, prof, m, log)
}

// withMachine completes setup's results with the machine: m, or this
// machine's calibration when no --machine was given.
func (f *predictFlags) withMachine(prog *interp.Program, prof *profile.File, m *machine.Machine, log io.Writer) (*interp.Program, *profile.File, *machine.Machine, error) {
	if m != nil {
		f.noteNoise(m, log)
		return prog, prof, m, nil
	}
	m, file, err := defaultMachine(log)
	if err != nil {
		return nil, nil, nil, err
	}
	if f.launcher != nil {
		// The launcher changes where the fragments are measured, not
		// the machine the messages are modeled on.
		fmt.Fprintf(log, "machine: note: under --launcher the fragments are measured under MPI, but this machine's default calibration is of the in-process runtime: give --machine a file from predict calibrate --launcher '…' to model MPI's messages\n")
	}
	f.machineFile = file
	f.noteNoise(m, log)
	return prog, prof, m, nil
}

// noteNoise says whether the predictions hold the machine's noise.
func (f *predictFlags) noteNoise(m *machine.Machine, log io.Writer) {
	switch {
	case len(m.Noise) == 0:
	case f.noNoise:
		fmt.Fprintf(log, "noise: left out (--no-noise): every burst of compute takes its mean time, where on %s it varies %s\n", m.Name, m.Noise.Describe())
	default:
		fmt.Fprintf(log, "noise: a rank's bursts of compute vary as on %s, %s; each rank draws its own (seed %d), so ranks that synchronise wait for the slowest (--no-noise leaves it out)\n",
			m.Name, m.Noise.Describe(), f.noiseSeed)
	}
}

// noiseText is what a report says of the noise the predictions on m drew
// (interp.NoiseText), "" when they drew none.
func (f *predictFlags) noiseText(m *machine.Machine) string {
	if len(m.Noise) == 0 || f.noNoise {
		return ""
	}
	return interp.NoiseText(f.noiseSeed, m.Noise)
}

// noiseConfig sets the noise flags in cfg.
func (f *predictFlags) noiseConfig(cfg interp.Config) interp.Config {
	cfg.NoNoise, cfg.NoiseSeed = f.noNoise, f.noiseSeed
	return cfg
}

// cachedProfile returns the profile at --profile-np ranks cached for these
// sources and arguments, or measures and caches it. Two ranks by default:
// code only ranks other than 0 run (a worker's loop, a late sender's
// delay) is measured too; at np=1 it would cost nothing in the model.
//
// Arguments that depend on np are those at --profile-np: the timing pass
// runs the program as it would run at that np.
func (f *predictFlags) cachedProfile(pkg string, prog *interp.Program, hash string, log io.Writer) (*profile.File, error) {
	np := f.profNP
	args, err := f.argsAt(np)
	if err != nil {
		return nil, err
	}
	cache := profile.DefaultCache()
	key := profile.Key{Package: prog.Model.Package, ContentHash: hash, NP: np, Args: args,
		ProbeVersion: probe.RawVersion, PassVersion: estimator.PassVersion, Reduction: reductionHash(prog),
		Launcher: f.launcher.String(), ArgsAt: f.argsAt}
	where := ""
	if f.launcher != nil {
		where = " under --launcher " + f.launcher.String()
	}
	path := cache.Path(key)
	if !f.noCache {
		switch p, found := cache.Load(key, prog.Model); found {
		case profile.CachedUnderLoad:
			fmt.Fprintf(log, "profile: the cached timing pass %s was measured under load (%.1f cores busy with other processes): measuring again\n", path, p.OtherCores)
		case profile.Hit:
			fmt.Fprintf(log, "profile: cached timing pass %s (np=%d%s, %s)\n", path, p.NP, where, p.Created)
			f.profileUsed = fmt.Sprintf("cached timing pass at np=%d%s, %s", p.NP, where, path)
			warnProfile(log, p)
			return p, nil
		}
	}
	fmt.Fprintf(log, "profile: none given: running the timing pass of %s at np=%d%s on this machine...\n", pkg, np, where)
	p, err := estimator.Run(estimator.Config{Pattern: pkg, Prepared: prog.Prepared, NP: np, Args: args, ArgsAt: f.argsAt, Repeat: f.runs,
		Launcher: f.launcher, Log: log})
	if err != nil {
		return nil, fmt.Errorf("timing pass: %v", err)
	}
	if p.LoadedRel > 0 {
		// The loaded runs measure the memory load of busier nodes
		// (estimator/alone.go).
		fmt.Fprintf(log, "profile: measured at np=%d on %d CPUs, and beside %d co-runner(s) streaming through memory: %.0f%% of the measured time; predictions charge between the two by how busy each node's cores are\n", np, runtime.NumCPU(), p.LoadedBy, 100*p.LoadedRel)
	}
	switch {
	case p.AloneRel > 0:
		// The alone run normalises it (estimator/alone.go).
		fmt.Fprintf(log, "profile: measured at np=%d on %d CPUs, and alone (the ranks taking turns): %.0f%% of the shared time; predictions charge between the two by how busy each node's cores are\n", np, runtime.NumCPU(), 100*p.AloneRel)
	case np > 1 && runtime.NumCPU() < 2*np:
		// The ranks compete for cores and memory bandwidth (stencil2d
		// class A: +84 % at np=2 on 2 cores).
		fmt.Fprintf(log, "profile: measured at np=%d on %d CPUs: memory-bound fragments may read slower than on a node of the target (--profile-np 1 suits a program whose ranks all run the same code)\n", np, runtime.NumCPU())
	}
	f.profileUsed = fmt.Sprintf("timing pass at np=%d%s run now (not cached)", np, where)
	stored, err := cache.Store(key, p)
	if err != nil {
		return nil, err
	}
	switch stored {
	case profile.Disturbed:
		// Used, loudly, but not kept: the next run measures again.
		fmt.Fprintf(log, "profile: WARNING: %v; this prediction uses it, and it is not cached\n", p.CheckDisturbance())
	case profile.UnderLoad:
		fmt.Fprintf(log, "profile: measured under load: this prediction uses it (see the warning above), and it is not cached\n")
	case profile.Cached:
		fmt.Fprintf(log, "profile: cached in %s (--no-cache measures again)\n", path)
		f.profileUsed = fmt.Sprintf("timing pass at np=%d%s run now, cached in %s", np, where, path)
	}
	return p, nil
}

// launcherFlag parses --launcher (words) and takes its number of ranks,
// which the flag npFlag gives as np where it was given (Launcher.Ranks
// says where they disagree); it checks that the launcher is installed and
// that the programs can be built for it.
func launcherFlag(cmd *cobra.Command, words, npFlag string, np int) (*estimator.Launcher, int, error) {
	l, err := estimator.ParseLauncher(words)
	if err != nil {
		return nil, 0, usagef(cmd, "%v", err)
	}
	given, name := 0, "--"+npFlag
	if npFlag == "np" {
		name = "-np"
	}
	if cmd.Flags().Changed(npFlag) {
		given = np
	}
	if np, err = l.Ranks(name, given); err != nil {
		return nil, 0, usagef(cmd, "%v", err)
	}
	if err := l.Check(); err != nil {
		return nil, 0, err
	}
	return l, np, nil
}

// splitArgs separates PKG from the program's arguments after --.
func splitArgs(cmd *cobra.Command, args []string) (string, []string, error) {
	dash := cmd.ArgsLenAtDash()
	if len(args) == 0 || dash == 0 {
		return "", nil, usagef(cmd, "missing PKG: the program, e.g. %s ./testprogs/stencil", cmd.CommandPath())
	}
	if dash > 1 || (dash < 0 && len(args) > 1) {
		return "", nil, usagef(cmd, "want one package before --, got %v (program arguments go after --)", args[:max(dash, len(args))])
	}
	var rest []string
	if dash >= 0 {
		rest = args[dash:]
	}
	return args[0], rest, nil
}

// warnProfile repeats what the timing pass found doubtful in a profile
// read from a file: it was said when it was measured, maybe long ago.
func warnProfile(log io.Writer, p *profile.File) {
	for _, w := range p.Warnings {
		fmt.Fprintf(log, "profile: WARNING: %s\n", w)
	}
	if err := p.CheckDisturbance(); err != nil && len(p.Warnings) == 0 {
		fmt.Fprintf(log, "profile: WARNING: %v\n", err)
	}
}

// defaultMachine is the machine of a command given no --machine: this
// machine's quick calibration (issue 21), cached by host and CPU model
// and measured on first use; the local preset, loudly, when the
// calibration is refused (a machine too noisy to calibrate) or cannot be
// cached.
func defaultMachine(log io.Writer) (m *machine.Machine, file string, err error) {
	dir := estimator.DefaultMachineCache()
	start := time.Now()
	m, cached, err := estimator.CachedLocal(dir, log)
	path := estimator.ThisLocalKey().Path(dir)
	switch {
	case err != nil && m == nil:
		preset, perr := machine.Preset("local")
		if perr != nil {
			return nil, "", perr
		}
		fmt.Fprintf(log, "machine: this machine could not be calibrated (%v); the local preset stands in (%s): its figures are fixed, not measured here; use --machine for another\n", err, preset.Description)
		return preset, "", nil
	case err != nil:
		fmt.Fprintf(log, "machine: this machine's calibration, measured now in %v (not cached: %v); use --machine for another\n", time.Since(start).Round(time.Millisecond), err)
		return m, "", nil
	case cached:
		when := ""
		if fi, err := os.Stat(path); err == nil {
			when = fi.ModTime().UTC().Format(" (measured 2006-01-02 15:04 UTC)")
		}
		fmt.Fprintf(log, "machine: this machine's calibration, cached at %s%s; use --machine for another (delete the file to measure it again)\n", path, when)
	default:
		fmt.Fprintf(log, "machine: this machine's calibration, measured now in %v and cached at %s; use --machine for another\n",
			time.Since(start).Round(time.Millisecond), path)
	}
	return m, path, nil
}

// reductionHash identifies prog's reduced model (its report's text: kept
// and opaque decisions, loops and their plan), for the profile cache's
// key; "" when the report cannot be written.
func reductionHash(prog *interp.Program) string {
	h := sha256.New()
	if prog.Report == nil || prog.Report.WriteText(h) != nil {
		return ""
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)[:12])
}

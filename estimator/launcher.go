// This file defines the MPI launcher a timing pass may run its programs
// under (predict profile --launcher 'mpirun -np 2'): its words, the number
// of ranks they give, and the same words for another number of ranks.

package estimator

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/predict-tools/predict/estimator/runclock"
)

// Launcher is the command line of an MPI launcher, without the program:
// under it the timing pass builds its programs with the mpi tag (commlib's
// MPI runtime, one process a rank) and runs each as Words, the binary,
// then the program's arguments.
type Launcher struct {
	Words []string
	NP    int // the ranks Words launch
	// npAt is the index in Words of the word holding the number of
	// ranks; npPrefix what precedes the number in it ("--np=" in
	// "--np=2", "" when the number is a word of its own).
	npAt     int
	npPrefix string
}

// npOptions are the launchers' options giving the number of ranks: Open
// MPI's -np, --np, -n, --n and -c (mpirun), MPICH's -n and -np (mpiexec),
// Slurm's -n and --ntasks (srun; there -c is the CPUs of a task).
var npOptions = []string{"-np", "--np", "-n", "--n", "-c", "--ntasks"}

// ParseLauncher splits s into words as a POSIX shell does (quotes and
// backslashes; no expansions) and finds the number of ranks among them.
func ParseLauncher(s string) (*Launcher, error) {
	words, err := splitWords(s)
	if err != nil {
		return nil, fmt.Errorf("--launcher %q: %v", s, err)
	}
	if len(words) == 0 {
		return nil, fmt.Errorf("--launcher %q: no command (want e.g. 'mpirun -np 2')", s)
	}
	l := &Launcher{Words: words, npAt: -1}
	srun := filepath.Base(words[0]) == "srun"
	for i := 1; i < len(words); i++ {
		opt, val, hasVal := strings.Cut(words[i], "=")
		if !slices.Contains(npOptions, opt) || (srun && opt == "-c") {
			continue
		}
		at, prefix := i, opt+"="
		if !hasVal {
			if i+1 == len(words) {
				return nil, fmt.Errorf("--launcher %q: %s without a number of ranks", s, opt)
			}
			at, prefix, val = i+1, "", words[i+1]
			i++
		}
		n, err := strconv.Atoi(val)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("--launcher %q: %s %s: want a number of ranks, at least 1", s, opt, val)
		}
		if l.npAt >= 0 && n != l.NP {
			return nil, fmt.Errorf("--launcher %q: two numbers of ranks (%d and %d)", s, l.NP, n)
		}
		l.NP, l.npAt, l.npPrefix = n, at, prefix
	}
	if l.npAt < 0 {
		return nil, fmt.Errorf("--launcher %q: no number of ranks (%s N): the timing pass reads the profile's np there, and changes it for the run that records the decisions at a second np", s, strings.Join(npOptions, ", "))
	}
	return l, nil
}

// At returns the launcher's words for np ranks.
func (l *Launcher) At(np int) []string {
	words := slices.Clone(l.Words)
	words[l.npAt] = l.npPrefix + strconv.Itoa(np)
	return words
}

// String returns the launcher's words as a shell would read them back
// ("" for none).
func (l *Launcher) String() string {
	if l == nil {
		return ""
	}
	var b strings.Builder
	for i, w := range l.Words {
		if i > 0 {
			b.WriteByte(' ')
		}
		if w != "" && !strings.ContainsAny(w, " \t\n'\"\\$`*?[]{}()<>|&;#~") {
			b.WriteString(w)
			continue
		}
		b.WriteString("'" + strings.ReplaceAll(w, "'", `'\''`) + "'")
	}
	return b.String()
}

// command returns the command that runs bin with np ranks under the
// launcher, and what to call once it has run. Each rank writes its own
// files (runclock.PerRankEnv). The launcher and its ranks run in a
// session of their own, which ends whole (session_unix.go) when ctx
// ends, when predict is stopped (no terminal's signal reaches that
// session: cancel is called), and after the run, for a rank the launcher
// left behind.
func (l *Launcher) command(ctx context.Context, cancel context.CancelFunc, np int, bin string, args, env []string) (*exec.Cmd, func()) {
	words := l.At(np)
	cmd := exec.CommandContext(ctx, words[0], append(append(words[1:], bin), args...)...)
	cmd.Env = append(append(os.Environ(), env...), runclock.PerRankEnv+"=1")
	newSession(cmd)
	cmd.Cancel = func() error {
		endSession(cmd.Process.Pid, launcherGrace)
		return nil
	}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, stopSignals...)
	go func() {
		select {
		case <-stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	return cmd, func() {
		signal.Stop(stop)
		if cmd.Process != nil {
			endSession(cmd.Process.Pid, launcherGrace)
		}
	}
}

// launcherGrace is how long a launcher has to stop its ranks after
// SIGTERM before they are killed.
const launcherGrace = 3 * time.Second

// Check says whether the launcher's command can be run, and whether the
// programs can be built for it: the mpi tag needs cgo.
func (l *Launcher) Check() error {
	if _, err := exec.LookPath(l.Words[0]); err != nil {
		hint := ""
		if base := filepath.Base(l.Words[0]); base == "mpirun" || base == "mpiexec" {
			hint = " (Open MPI: apt-get install openmpi-bin libopenmpi-dev pkg-config)"
		}
		return fmt.Errorf("--launcher %s: %s not found%s", l, l.Words[0], hint)
	}
	// Without cgo the mpi tag builds the in-process runtime: every
	// process would run all the ranks.
	out, err := exec.Command("go", "env", "CGO_ENABLED").Output()
	if err == nil && strings.TrimSpace(string(out)) != "1" {
		return fmt.Errorf("--launcher %s: the programs are built with -tags %s, which needs cgo (CGO_ENABLED=1 and a C compiler): go env CGO_ENABLED says %q", l, mpiTag, strings.TrimSpace(string(out)))
	}
	return nil
}

// splitWords splits s into words as a POSIX shell does: blanks separate
// words; single quotes keep everything up to the next; double quotes keep
// everything but a backslash before ", \, $ or `; a backslash outside
// quotes keeps the next character. Nothing is expanded.
func splitWords(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, errors.New("unterminated single quote")
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`", s[i+1]) >= 0 {
					i++
				}
				cur.WriteByte(s[i])
			}
			if i == len(s) {
				return nil, errors.New("unterminated double quote")
			}
			inWord = true
		case c == '\\':
			if i+1 == len(s) {
				return nil, errors.New("backslash at the end")
			}
			i++
			cur.WriteByte(s[i])
			inWord = true
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

// Ranks is the number of ranks of a timing pass under l given np ranks by
// the flag named flag (np 0: not given): the launcher's, which a given np
// must equal.
func (l *Launcher) Ranks(flag string, np int) (int, error) {
	if np != 0 && np != l.NP {
		return 0, fmt.Errorf("%s %d and --launcher %s (%d ranks) disagree: give one of them, or the same number", flag, np, l, l.NP)
	}
	return l.NP, nil
}

// checkLauncher checks the launcher of a timing pass and takes its number
// of ranks.
func (cfg *Config) checkLauncher() error {
	l := cfg.Launcher
	if l == nil {
		return nil
	}
	np, err := l.Ranks("-np", cfg.NP)
	if err != nil {
		return err
	}
	cfg.NP = np
	return l.Check()
}

// buildTags are the tags the pass builds its programs with: the user's,
// and under a launcher the mpi tag. The model is loaded with the user's
// alone: the mpi tag changes commlib's files, not the program's, and the
// profile must match the model that predict run loads.
func (cfg *Config) buildTags() []string {
	tags := slices.Clone(cfg.Tags)
	if cfg.Launcher != nil && !slices.Contains(tags, mpiTag) {
		tags = append(tags, mpiTag)
	}
	return tags
}

// skipUnderLauncher turns off the extra runs that a launched run cannot
// make and returns why, for the profile's warnings: the alone runs make
// the ranks take turns, and the loaded runs start co-runners beside them,
// both inside the one process of the in-process runtime (COMMLIB_SERIAL
// and COMMLIB_STREAM); under MPI each rank is a process of its own, and
// the runs would measure the ranks sharing the node as the others do.
func (cfg *Config) skipUnderLauncher(alone, loaded *extraRuns) []string {
	if cfg.Launcher == nil {
		return nil
	}
	var why []string
	if alone.on {
		alone.on = false
		why = append(why, fmt.Sprintf("the runs measuring each fragment alone were skipped: under --launcher %s the ranks are processes of their own, which cannot take turns (%s is in-process only); the fragments are charged as measured with the %d ranks sharing this machine at every np", cfg.Launcher, SerialEnv, cfg.NP))
	}
	if loaded.on {
		loaded.on = false
		why = append(why, fmt.Sprintf("the runs measuring each fragment beside a memory load were skipped: under --launcher %s the co-runners (%s) do not start (in-process only); the fragments are charged as measured at every np, however busy their node", cfg.Launcher, StreamEnv))
	}
	return why
}

// This file defines the text, JSON and CSV forms of an analysis.

package scale

import (
	"bufio"
	"cmp"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
)

// WriteText writes the analysis for a person: what was predicted, a table
// aligned in columns with one row per process count (failed ones
// included), the errors of the failed ones, then the fitted figures and
// the verdict. Equal analyses give identical text.
func (a Analysis) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	if a.Name != "" {
		fmt.Fprintf(bw, "Predicted scaling of %s\n", a.Name)
	}
	if len(a.Args) > 0 {
		fmt.Fprintf(bw, "Program arguments: %s\n", strings.Join(a.Args, " "))
	}
	if m := a.Machine; m != nil {
		fmt.Fprintf(bw, "Machine: %s (%s", m.Name, m.Origin)
		if m.File != "" {
			fmt.Fprintf(bw, ", %s", m.File)
		}
		fmt.Fprintf(bw, "): %s\n", m.Description)
	}
	if a.Noise != "" {
		fmt.Fprintf(bw, "Noise: %s\n", a.Noise)
	}
	if a.Profile != "" {
		fmt.Fprintf(bw, "Profile: %s\n", a.Profile)
	}
	if a.Weak() {
		fmt.Fprintf(bw, "Weak scaling (arguments depend on np): efficiency is T(%d)/T(np), speedup the scaled speedup %s × T(%d)/T(np)\n",
			a.BaselineNP, a.ratio(), a.BaselineNP)
	}
	fmt.Fprintf(bw, "Baseline: np=%d, %v\n\n", a.BaselineNP, a.Baseline)
	if len(a.Rows) == 0 {
		fmt.Fprintln(bw, "No predictions.")
		return bw.Flush()
	}

	// The shares' columns; waiting for a core only when some np has it.
	cores := a.coreWaits()
	what, cols := "compute, communication overhead, waiting for other ranks, ", "compute\tcomm\twait\t"
	if cores {
		what, cols = what+"waiting for a core (more ranks than cores on a node), ", cols+"cores\t"
	}
	fmt.Fprintf(bw, "Breakdown: shares of np × time: %sidle after the rank finishes.\n", what)
	tw := tabwriter.NewWriter(bw, 0, 0, 2, ' ', tabwriter.AlignRight)
	speedup := "speedup"
	if a.Weak() {
		speedup = "scaled speedup"
	}
	fmt.Fprintf(tw, "np\ttime\t%s\tefficiency\t%sidle\t\n", speedup, cols)
	for _, l := range a.lines() {
		shares := 4
		if cores {
			shares = 5
		}
		if l.row == nil {
			fmt.Fprintf(tw, "%d\tfailed\t–\t–\t%s\n", l.failure.NP, strings.Repeat("–\t", shares))
			continue
		}
		r := l.row
		parts := []float64{r.ComputeShare, r.CommShare, r.WaitShare}
		if cores {
			parts = append(parts, r.CoreWaitShare)
		}
		fmt.Fprintf(tw, "%d\t%s\t%.2f\t%.2f\t%s%%\t\n",
			r.NP, r.timeText(), r.Speedup, r.Efficiency, strings.Join(percents(append(parts, r.IdleShare)...), "%\t"))
	}
	tw.Flush()
	for _, f := range a.Failed {
		fmt.Fprintf(bw, "np=%d: %s\n", f.NP, f.Error)
	}
	fmt.Fprintln(bw)

	tw = tabwriter.NewWriter(bw, 0, 0, 2, ' ', 0)
	law := "Amdahl serial fraction"
	if a.Weak() {
		law = "serial fraction (weak)"
	}
	switch {
	case !a.fitted():
		fmt.Fprintf(tw, "%s\tnot fitted: no process count besides the baseline\n", law)
	default:
		model := fmt.Sprintf("T(np) = T(%d)·(f + (1−f)/np)", a.BaselineNP)
		if a.BaselineNP != 1 {
			model = fmt.Sprintf("T(np) = T(%d)·(f + (1−f)·%d/np)", a.BaselineNP, a.BaselineNP)
		}
		if a.Weak() {
			model = fmt.Sprintf("T(np) = T(%d)·(1 + f·(%s − 1)), serial work growing with the problem", a.BaselineNP, a.ratio())
		}
		fmt.Fprintf(tw, "%s\tf = %.4g (%s; least squares on relative times; rms error %.1f%%%s)\n",
			law, a.SerialFraction, model, 100*a.FitError, poorFit(a.FitError))
		bound := "Amdahl bound"
		if a.Weak() {
			bound = "scaled-speedup bound"
		}
		if a.SMax > 0 {
			fmt.Fprintf(tw, "%s\tS_max = 1/f = %.4g\n", bound, a.SMax)
		} else {
			fmt.Fprintf(tw, "%s\tS_max = unbounded (f = 0)\n", bound)
		}
	}
	fmt.Fprintf(tw, "peak %s\t%.3g at np=%d\n", speedup, a.PeakSpeedup, a.PeakNP)
	if a.HalfEfficiencyNP > 0 {
		fmt.Fprintf(tw, "efficiency < 0.5\tfrom np=%d\n", a.HalfEfficiencyNP)
	} else {
		fmt.Fprintf(tw, "efficiency < 0.5\tnowhere up to np=%d\n", a.Rows[len(a.Rows)-1].NP)
	}
	if g := a.Growing; g != nil {
		fmt.Fprintf(tw, "fastest-growing share\t%s %s: %.1f%% at np=%d → %.1f%% at np=%d (%+.1f points per doubling)\n",
			g.Node.Pos, g.Node.ID, 100*g.FirstShare, a.Rows[0].NP, 100*g.LastShare, a.Rows[len(a.Rows)-1].NP, 100*g.PerDoubling)
	}
	tw.Flush()
	fmt.Fprintf(bw, "\nVerdict: %s\n", a.Verdict)
	if len(a.Limits) > 0 {
		fmt.Fprintf(bw, "\nModeling limits (left out of the predicted times):\n")
		for _, l := range a.Limits {
			fmt.Fprintf(bw, "  WARNING: %s\n", l)
		}
	}
	return bw.Flush()
}

// ratio is how the text writes np relative to the baseline np.
func (a Analysis) ratio() string {
	if a.BaselineNP == 1 {
		return "np"
	}
	return fmt.Sprintf("np/%d", a.BaselineNP)
}

// A line is a row of the table: a prediction or a failure.
type line struct {
	row     *Row
	failure *Failure
}

// lines are the rows and the failures, by increasing np.
func (a Analysis) lines() []line {
	var ls []line
	for i := range a.Rows {
		ls = append(ls, line{row: &a.Rows[i]})
	}
	for i := range a.Failed {
		ls = append(ls, line{failure: &a.Failed[i]})
	}
	np := func(l line) int {
		if l.row != nil {
			return l.row.NP
		}
		return l.failure.NP
	}
	slices.SortStableFunc(ls, func(x, y line) int { return cmp.Compare(np(x), np(y)) })
	return ls
}

// percents formats shares that sum to 1 as percentages with one decimal
// that sum to 100.0 (largest remainder rounding), so that the table's
// columns add up as the shares do. Shares that are all 0 stay 0.0.
func percents(shares ...float64) []string {
	const unit = 1000 // tenths of a percent in the whole
	tenths := make([]int, len(shares))
	rest := make([]int, len(shares)) // indices by decreasing remainder
	var total float64
	left := unit
	for i, s := range shares {
		total += s
		v := s * unit
		tenths[i] = int(math.Floor(v))
		left -= tenths[i]
		rest[i] = i
	}
	if total > 0 {
		slices.SortStableFunc(rest, func(i, j int) int {
			fi, fj := shares[i]*unit-math.Floor(shares[i]*unit), shares[j]*unit-math.Floor(shares[j]*unit)
			return cmp.Compare(fj, fi)
		})
		for k := 0; k < left && k < len(rest); k++ {
			tenths[rest[k]]++
		}
	}
	out := make([]string, len(shares))
	for i, t := range tenths {
		out[i] = fmt.Sprintf("%d.%d", t/10, t%10)
	}
	return out
}

// WriteJSON writes the analysis as indented JSON; json.Unmarshal reads it
// back into an equal Analysis. Keys are snake_case; lists are never null.
func (a Analysis) WriteJSON(w io.Writer) error {
	if a.Args == nil {
		a.Args = []string{}
	}
	if a.Rows == nil {
		a.Rows = []Row{}
	}
	if a.Failed == nil {
		a.Failed = []Failure{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(a)
}

// csvHeader names the columns of WriteCSV. Times are picoseconds, shares
// fractions of the machine's time np × time; args are the program's
// arguments at that np in weak scaling; error is why a failed np has no
// figures.
var csvHeader = []string{
	"np", "time_ps", "speedup", "efficiency",
	"compute_ps", "comm_ps", "wait_ps", "idle_ps",
	"compute_share", "comm_share", "wait_share", "idle_share",
	"core_wait_ps", "core_wait_share",
	"args", "error",
}

// WriteCSV writes the table of the analysis as CSV with a header line
// (csvHeader): one line per process count, failed ones included. Numbers
// are written in full, so that reading them back gives the same values.
func (a Analysis) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write(csvHeader)
	float := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	for _, l := range a.lines() {
		if l.row == nil {
			record := make([]string, len(csvHeader))
			record[0], record[len(record)-1] = strconv.Itoa(l.failure.NP), l.failure.Error
			cw.Write(record)
			continue
		}
		r := l.row
		cw.Write([]string{
			strconv.Itoa(r.NP), strconv.FormatInt(int64(r.Time), 10), float(r.Speedup), float(r.Efficiency),
			strconv.FormatInt(int64(r.Compute), 10), strconv.FormatInt(int64(r.Comm), 10),
			strconv.FormatInt(int64(r.Wait), 10), strconv.FormatInt(int64(r.Idle), 10),
			float(r.ComputeShare), float(r.CommShare), float(r.WaitShare), float(r.IdleShare),
			strconv.FormatInt(int64(r.CoreWait), 10), float(r.CoreWaitShare),
			strings.Join(r.Args, " "), "",
		})
	}
	cw.Flush()
	return cw.Error()
}

// coreWaits reports whether a rank waited for a core at some np: the
// table then has a column for it.
func (a Analysis) coreWaits() bool {
	for _, r := range a.Rows {
		if r.CoreWait > 0 {
			return true
		}
	}
	return false
}

// fitted reports whether the fit had a process count other than the
// baseline's to go by.
func (a Analysis) fitted() bool {
	for _, r := range a.Rows {
		if r.NP != a.BaselineNP {
			return true
		}
	}
	return false
}

// poorFitError is the rms relative error above which the report says that
// the time does not follow the fitted law.
const poorFitError = 0.1

func poorFit(rmsError float64) string {
	if rmsError > poorFitError {
		return ": a poor fit, the time does not follow this law"
	}
	return ""
}

// timeText is the row's time with its bound, when it has one.
func (r *Row) timeText() string {
	if r.Bound <= 0 || r.Time <= 0 {
		return r.Time.String()
	}
	return fmt.Sprintf("%v ±%.1f%%", r.Time, 100*float64(r.Bound)/float64(r.Time))
}

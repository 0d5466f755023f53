// This file defines the printed forms of a validation report.

package validate

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/predict-tools/predict/trace"
)

// WriteJSON writes the report as indented JSON; times are picoseconds.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}

// WriteText writes the table of measured against predicted times, the
// profile's quality, and per np the regions that differ most (top of
// them).
func (r *Report) WriteText(w io.Writer, top int) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Validation of %s: %d real runs per np, span from the first rank's start to the last rank's end\n", r.Package, r.Runs)
	if r.Launcher != "" {
		fmt.Fprintf(&b, "Real runs under %s, one process a rank, its number of ranks set to each np\n", r.Launcher)
	}
	if r.Machine != "" || r.ProfileSource != "" {
		fmt.Fprintf(&b, "Predicted with machine %s, profile: %s\n", r.Machine, r.ProfileSource)
	}
	if r.Noise != "" {
		fmt.Fprintf(&b, "Noise drawn: %s\n", r.Noise)
	}
	b.WriteString("\n")
	tw := tabwriter.NewWriter(&b, 2, 0, 2, ' ', tabwriter.AlignRight)
	drift := ""
	if r.Drift != nil {
		drift = "at profile speed\t"
	}
	fmt.Fprintf(tw, "np\tmeasured (median)\tmin\tmax\tspread\tprocess\tpredicted\terror\t%s\n", drift)
	for _, p := range r.Points {
		if p.Failed != "" && p.Measured.Median == 0 {
			empty := ""
			if drift != "" {
				empty = "\t"
			}
			fmt.Fprintf(tw, "%d\t—\t\t\t\t\t\t\t%s\n", p.NP, empty)
			continue
		}
		pred, errs, adj := "—", "—", ""
		if r.Drift != nil {
			adj = "—\t"
			if p.ErrorAtProfileSpeed != nil {
				adj = fmt.Sprintf("%+.1f%%\t", 100**p.ErrorAtProfileSpeed)
			}
		}
		if p.Predicted > 0 {
			pred, errs = p.Predicted.String(), fmt.Sprintf("%+.1f%%", 100*p.Error)
			if p.Bound > 0 {
				pred += fmt.Sprintf(" ±%.1f%%", 100*float64(p.Bound)/float64(p.Predicted))
			}
			if p.WithinNoise {
				errs += "*"
			}
		}
		fmt.Fprintf(tw, "%d\t%v\t%v\t%v\t±%.1f%%\t%v\t%s\t%s\t%s\n", p.NP, p.Measured.Median, p.Measured.Min, p.Measured.Max,
			50*p.Measured.Relative(), p.Process.Median, pred, errs, adj)
	}
	tw.Flush()
	noisy := false
	for _, p := range r.Points {
		if p.Failed != "" {
			fmt.Fprintf(&b, "np=%d: %s\n", p.NP, p.Failed)
		}
		for _, l := range p.Limits {
			fmt.Fprintf(&b, "np=%d: the prediction leaves out: %s\n", p.NP, l)
		}
		noisy = noisy || p.WithinNoise
	}
	if noisy {
		fmt.Fprintf(&b, "* the real runs vary by more than this error (spread = ±half the max−min range, of the median): the error is within their noise; more --runs or a quieter machine\n")
	}
	switch {
	case r.Drift != nil:
		fmt.Fprintf(&b, "%s\n", r.Drift.text())
	case r.DriftUnknown != "":
		fmt.Fprintf(&b, "Machine drift: unknown: %s\n", r.DriftUnknown)
	}
	q := r.Profile
	fmt.Fprintf(&b, "\nProfile (np=%d): coverage %.1f%% of the plain run", q.NP, 100*q.Coverage)
	if q.Uncovered > 0 {
		fmt.Fprintf(&b, ", so %.1f%% of it no fragment measured (the model charges it nothing)", 100*q.Uncovered)
	}
	fmt.Fprintf(&b, "; probed against plain run %.2f×; error bound of the means ±%.1f%%\n", q.Disturbance, 100*q.ErrorBound)
	for _, w := range q.Warnings {
		fmt.Fprintf(&b, "WARNING: %s\n", w)
	}
	for _, p := range r.Points {
		if len(p.Regions) == 0 {
			continue
		}
		var meas, pred trace.Time
		for _, rt := range p.Regions {
			meas += rt.Measured
			pred += rt.Predicted
		}
		fmt.Fprintf(&b, "\nWhere the difference is at np=%d (a traced run of span %v against the modeled trace; time summed over ranks: %v measured, %v predicted):\n",
			p.NP, p.TracedSpan, meas, pred)
		tw := tabwriter.NewWriter(&b, 2, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "  MEASURED\tPREDICTED\tDIFF\tOF RUN\tCOUNT\tREGION\n")
		for i, rt := range p.Regions {
			if i == top {
				fmt.Fprintf(tw, "  …\t\t\t\t\t%d more regions\n", len(p.Regions)-top)
				break
			}
			rel := "new"
			if rt.Measured > 0 {
				rel = fmt.Sprintf("%+.0f%%", 100*float64(rt.Diff())/float64(rt.Measured))
			}
			share := 0.0
			if meas > 0 {
				share = 100 * float64(rt.Diff()) / float64(meas)
			}
			count := fmt.Sprint(rt.MeasuredCount)
			if rt.PredictedCount != rt.MeasuredCount {
				count = fmt.Sprintf("%d real, %d model", rt.MeasuredCount, rt.PredictedCount)
			}
			fmt.Fprintf(tw, "  %v\t%v\t%v (%s)\t%+.1f%%\t%s\t%s\n", rt.Measured, rt.Predicted, rt.Diff(), rel, share, count, rt.Region)
		}
		tw.Flush()
	}
	_, err := io.WriteString(w, b.String())
	return err
}

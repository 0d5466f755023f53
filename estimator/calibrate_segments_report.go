// This file defines how a calibration reports its piecewise fit: the
// summary's table of ranges, and the line of the machine's source.

package estimator

import (
	"fmt"
	"io"
	"math"
	"text/tabwriter"
)

// residuals are the fit's residuals, size by size, in the table's order.
func (f SegmentFit) residuals() []Residual {
	var rs []Residual
	for _, g := range f.Segments {
		rs = append(rs, g.Residuals...)
	}
	return rs
}

// verdict says how the fit meets its tolerance.
func (f SegmentFit) verdict() string {
	if f.Failure != "" {
		return fmt.Sprintf("NOT within ±%.0f %% at every size, only at %d of %d", 100*f.Tolerance, f.Within, f.Sizes)
	}
	return fmt.Sprintf("within ±%.0f %% at every size (%d)", 100*f.Tolerance, f.Sizes)
}

// breakText says where the ranges must break.
func (f SegmentFit) breakText() string {
	if f.EagerLimit < 0 {
		return "no change of protocol to break at"
	}
	return fmt.Sprintf("a break after the eager limit %d B", f.EagerLimit)
}

// text is the fit in a phrase, for the machine's source.
func (f SegmentFit) text() string {
	s := fmt.Sprintf("piecewise LogGP (SimGrid/SMPI's per-range factors): %s by relative least squares, fewest ranges by dynamic programming, %s, %s",
		plural(len(f.Segments), "range"), f.breakText(), f.verdict())
	if f.Failure != "" {
		s += " (" + f.Failure + ")"
	}
	return s
}

// summary writes the fit's ranges: each with its time at lo, cost per
// byte (and the bandwidth it makes) and worst residual.
func (f SegmentFit) summary(w io.Writer) {
	if len(f.Segments) == 0 {
		return
	}
	fmt.Fprintf(w, "segments (piecewise LogGP, SimGrid/SMPI's per-range factors; %s): %s, %s, relative rms %.1f %%\n",
		f.breakText(), plural(len(f.Segments), "range"), f.verdict(), 100*f.RelRMS)
	if f.Failure != "" {
		fmt.Fprintf(w, "  FAILED: %s\n", f.Failure)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "from\tto\tone-way at from\tper byte\tbandwidth\tworst\t")
	for _, g := range f.Segments {
		worst := g.Residuals[0]
		for _, r := range g.Residuals {
			if math.Abs(r.Rel) > math.Abs(worst.Rel) {
				worst = r
			}
		}
		fmt.Fprintf(tw, "%d B\t%d B\t%s\t%.4g ns/B\t%s\t%s at %d B\t\n", g.Lo, g.Hi, nsText(g.Intercept), g.Slope, mbPerSecond(g.Slope), percent(worst.Rel), worst.Bytes)
	}
	tw.Flush()
}

// mbPerSecond is the bandwidth of a cost of perByte ns a byte, in MB/s.
func mbPerSecond(perByte float64) string {
	if perByte <= 0 {
		return "∞ MB/s"
	}
	if bw := 1e3 / perByte; bw >= 1e4 {
		return fmt.Sprintf("%.0f MB/s", bw)
	}
	return fmt.Sprintf("%.4g MB/s", 1e3/perByte)
}

// percent prints a relative residual to 0.1 %, signed, a rounding error
// of a fit that is exact printed +0.0 %, never −0.0 %.
func percent(rel float64) string {
	p := math.Round(1000*rel) / 10
	if p == 0 {
		p = 0 // not −0
	}
	return fmt.Sprintf("%+.1f %%", p)
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

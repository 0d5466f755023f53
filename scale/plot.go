// This file defines the plots of an analysis: speedup, efficiency and
// breakdown against the process count.

package scale

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// The size of every plot, and the resolution of the PNG files.
const (
	plotWidth  = 6 * vg.Inch
	plotHeight = 4 * vg.Inch
	pngDPI     = 144
)

// Colours (those of matplotlib's default cycle, which readers know).
var (
	blue   = color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}
	orange = color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff}
	green  = color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff}
	red    = color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff}
	grey   = color.RGBA{R: 0x7f, G: 0x7f, B: 0x7f, A: 0xff}
	purple = color.RGBA{R: 0x94, G: 0x67, B: 0xbd, A: 0xff}
)

// Plot writes three plots of the analysis into dir (created if need be),
// each as PNG and SVG: speedup.{png,svg} (predicted, ideal and fitted
// speedup, log-log; scaled speedup in weak scaling), efficiency.{png,svg},
// and breakdown.{png,svg} (compute, communication, waiting, waiting for a
// core when a node has more ranks than cores, and idle after finishing as
// shares of np × time, stacked, one bar per np). The np axis
// is logarithmic in base 2, with a tick at every process count of the
// sweep; a process count whose prediction failed is marked with a red
// cross on the axis. It returns the paths of the files written, in that
// order. Equal analyses give identical files.
func Plot(a Analysis, dir string) ([]string, error) {
	if len(a.Rows) == 0 {
		return nil, fmt.Errorf("plot: no predictions to plot")
	}
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return nil, err
	}
	plots := []struct {
		name  string
		build func(Analysis) (*plot.Plot, error)
	}{
		{"speedup", speedupPlot},
		{"efficiency", efficiencyPlot},
		{"breakdown", breakdownPlot},
	}
	var files []string
	for _, pl := range plots {
		for _, format := range []string{"png", "svg"} {
			// A plot is drawn once: drawing settles its axes.
			p, err := pl.build(a)
			if err != nil {
				return files, fmt.Errorf("plot %s: %v", pl.name, err)
			}
			data, err := render(p, format)
			if err != nil {
				return files, fmt.Errorf("plot %s: %v", pl.name, err)
			}
			file := filepath.Join(dir, pl.name+"."+format)
			if err := os.WriteFile(file, data, 0o666); err != nil {
				return files, err
			}
			files = append(files, file)
		}
	}
	return files, nil
}

// render draws p in the format, "png" or "svg".
func render(p *plot.Plot, format string) ([]byte, error) {
	var (
		canvas vg.CanvasWriterTo
		buf    bytes.Buffer
	)
	switch format {
	case "png":
		canvas = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(plotWidth, plotHeight), vgimg.UseDPI(pngDPI))}
	case "svg":
		canvas = vgsvg.New(plotWidth, plotHeight)
	default:
		panic("scale: unknown plot format " + format)
	}
	p.Draw(draw.New(canvas))
	if _, err := canvas.WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// newPlot returns a plot with the np axis of the analysis.
func newPlot(a Analysis, title, yLabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	if a.Name != "" {
		// On a line of its own: an import path is long.
		p.Title.Text += "\n" + a.Name
	}
	p.X.Label.Text = "processes (np)"
	p.Y.Label.Text = yLabel
	p.X.Scale = plot.LogScale{}
	var nps []int
	for _, l := range a.lines() {
		if l.row != nil {
			nps = append(nps, l.row.NP)
		} else {
			nps = append(nps, l.failure.NP)
		}
	}
	p.X.Tick.Marker = npTicks(nps)
	// Half a step of margin on each side, so that the first and last
	// points (and bars) stand clear of the axes.
	left, right := npMargins(nps)
	p.X.Min, p.X.Max = float64(nps[0])/math.Exp2(left), float64(nps[len(nps)-1])*math.Exp2(right)
	p.Add(plotter.NewGrid())
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.Padding = vg.Points(2)
	p.Legend.XOffs = vg.Points(6)
	return p
}

// npMargins are the margins of the np axis in log₂ units: half the step
// from the smallest np to the next, and from the largest to the one before,
// each at most 0.5 (half a doubling).
func npMargins(nps []int) (left, right float64) {
	left, right = 0.5, 0.5
	if n := len(nps); n > 1 {
		left = min(left, math.Log2(float64(nps[1])/float64(nps[0]))/2)
		right = min(right, math.Log2(float64(nps[n-1])/float64(nps[n-2]))/2)
	}
	return left, right
}

// addFailed marks the process counts whose prediction failed with a red
// cross at height y, and names them in the legend.
func addFailed(p *plot.Plot, a Analysis, y float64) error {
	if len(a.Failed) == 0 {
		return nil
	}
	xys := make(plotter.XYs, len(a.Failed))
	for i, f := range a.Failed {
		xys[i] = plotter.XY{X: float64(f.NP), Y: y}
	}
	crosses, err := plotter.NewScatter(xys)
	if err != nil {
		return err
	}
	crosses.Shape, crosses.Color, crosses.Radius = draw.CrossGlyph{}, red, vg.Points(4)
	p.Add(crosses)
	p.Legend.Add("failed (no prediction)", crosses)
	return nil
}

func speedupPlot(a Analysis) (*plot.Plot, error) {
	title, yLabel, fitName := "Predicted speedup", fmt.Sprintf("speedup over np=%d", a.BaselineNP), "Amdahl"
	if a.Weak() {
		title = "Predicted scaled speedup (weak scaling)"
		yLabel = fmt.Sprintf("%s × T(%d)/T(np)", a.ratio(), a.BaselineNP)
		fitName = "serial fraction"
	}
	p := newPlot(a, title, yLabel)
	p.Y.Scale = plot.LogScale{}

	measured := make(plotter.XYs, len(a.Rows))
	for i, r := range a.Rows {
		measured[i] = plotter.XY{X: float64(r.NP), Y: r.Speedup}
	}
	first, last := float64(a.Rows[0].NP), float64(a.Rows[len(a.Rows)-1].NP)
	ideal := plotter.XYs{{X: first, Y: first / float64(a.BaselineNP)}, {X: last, Y: last / float64(a.BaselineNP)}}
	// The fitted curve, sampled evenly on the log axis.
	const samples = 64
	amdahl := make(plotter.XYs, samples+1)
	for i := range amdahl {
		np := first * math.Pow(last/first, float64(i)/samples)
		amdahl[i] = plotter.XY{X: np, Y: a.FittedSpeedup(np)}
	}

	idealLine, err := plotter.NewLine(ideal)
	if err != nil {
		return nil, err
	}
	idealLine.Color, idealLine.Dashes = grey, []vg.Length{vg.Points(5), vg.Points(3)}
	amdahlLine, err := plotter.NewLine(amdahl)
	if err != nil {
		return nil, err
	}
	amdahlLine.Color, amdahlLine.Dashes = orange, []vg.Length{vg.Points(1.5), vg.Points(2)}
	amdahlLine.Width = vg.Points(1.5)
	line, points, err := plotter.NewLinePoints(measured)
	if err != nil {
		return nil, err
	}
	line.Color, line.Width, points.Color = blue, vg.Points(1.5), blue
	// The y range, set rather than found: on a log axis a range of one
	// value (a sweep of one np) would be widened to below 0.
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, xys := range []plotter.XYs{measured, ideal, amdahl} {
		for _, xy := range xys {
			lo, hi = min(lo, xy.Y), max(hi, xy.Y)
		}
	}
	// Headroom for the legend, top left: about 30 % of the height.
	lo, hi = lo/math.Sqrt2, hi*math.Sqrt2
	p.Y.Min, p.Y.Max = lo, hi*math.Exp2(max(1, 0.45*math.Log2(hi/lo)))
	p.Y.Tick.Marker = powerOfTwoTicks{max: hi} // none in the headroom
	p.Add(idealLine)
	if a.fitted() {
		p.Add(amdahlLine)
	}
	p.Add(line, points)
	p.Legend.Add("predicted", line, points)
	p.Legend.Add("ideal", idealLine)
	if a.fitted() {
		p.Legend.Add(fmt.Sprintf("%s, f = %.3g", fitName, a.SerialFraction), amdahlLine)
	}
	return p, addFailed(p, a, lo*math.Sqrt2)
}

func efficiencyPlot(a Analysis) (*plot.Plot, error) {
	title, yLabel := "Predicted parallel efficiency", fmt.Sprintf("efficiency relative to np=%d", a.BaselineNP)
	if a.Weak() {
		title, yLabel = "Predicted weak-scaling efficiency", fmt.Sprintf("T(%d)/T(np)", a.BaselineNP)
	}
	p := newPlot(a, title, yLabel)
	effs := make(plotter.XYs, len(a.Rows))
	top := 1.0
	for i, r := range a.Rows {
		effs[i] = plotter.XY{X: float64(r.NP), Y: r.Efficiency}
		top = max(top, r.Efficiency)
	}
	p.Y.Min, p.Y.Max = 0, top*1.1

	horizontal := func(y float64, c color.Color, dashes []vg.Length) (*plotter.Line, error) {
		l, err := plotter.NewLine(plotter.XYs{{X: p.X.Min, Y: y}, {X: p.X.Max, Y: y}})
		if err != nil {
			return nil, err
		}
		l.Color, l.Dashes = c, dashes
		return l, nil
	}
	ideal, err := horizontal(1, grey, []vg.Length{vg.Points(5), vg.Points(3)})
	if err != nil {
		return nil, err
	}
	half, err := horizontal(HalfEfficiency, red, []vg.Length{vg.Points(1.5), vg.Points(2)})
	if err != nil {
		return nil, err
	}
	line, points, err := plotter.NewLinePoints(effs)
	if err != nil {
		return nil, err
	}
	line.Color, line.Width, points.Color = blue, vg.Points(1.5), blue
	p.Add(ideal, half, line, points)
	// Efficiency falls from the top left: the bottom left stays clear.
	p.Legend.Top, p.Legend.Left = false, true
	p.Legend.YOffs = vg.Points(4)
	p.Legend.Add("predicted", line, points)
	p.Legend.Add("ideal", ideal)
	p.Legend.Add("50 %", half)
	return p, addFailed(p, a, 0.02*p.Y.Max)
}

func breakdownPlot(a Analysis) (*plot.Plot, error) {
	p := newPlot(a, "Where the machine's time goes", "share of np × time (%)")
	names := []string{"compute", "communication", "waiting", "idle after finishing"}
	bars := &stackedBars{
		xs:     make([]float64, len(a.Rows)),
		layers: make([][]float64, 4),
		colors: []color.Color{blue, orange, green, grey},
	}
	cores := a.coreWaits()
	if cores {
		// Waiting for a core, between waiting and idle.
		names = slices.Insert(names, 3, "waiting for a core")
		bars.layers = append(bars.layers, nil)
		bars.colors = slices.Insert(bars.colors, 3, color.Color(purple))
	}
	for i := range bars.layers {
		bars.layers[i] = make([]float64, len(a.Rows))
	}
	for i, r := range a.Rows {
		bars.xs[i] = float64(r.NP)
		bars.layers[0][i] = 100 * r.ComputeShare
		bars.layers[1][i] = 100 * r.CommShare
		bars.layers[2][i] = 100 * r.WaitShare
		if cores {
			bars.layers[3][i] = 100 * r.CoreWaitShare
		}
		bars.layers[len(bars.layers)-1][i] = 100 * r.IdleShare
	}
	p.Add(bars)
	p.Y.Min, p.Y.Max = 0, 150 // headroom for the legend above the bars
	p.Y.Tick.Marker = plot.ConstantTicks{
		{Value: 0, Label: "0"}, {Value: 25, Label: "25"}, {Value: 50, Label: "50"},
		{Value: 75, Label: "75"}, {Value: 100, Label: "100"},
	}
	for i, name := range names {
		p.Legend.Add(name, swatch{bars.colors[i]})
	}
	return p, addFailed(p, a, 3)
}

// stackedBars draws one stack of bars per x on a log axis: the bars of
// plotter.BarChart sit at consecutive integers, which a log axis cannot
// place at the process counts.
type stackedBars struct {
	xs     []float64
	layers [][]float64 // from the bottom up, each with one height per x
	colors []color.Color
}

// Plot implements plot.Plotter.
func (b *stackedBars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for i, x := range b.xs {
		// 70 % of the distance to the nearest neighbour on the log axis,
		// and at most 70 % of a doubling.
		half := 0.35
		if i > 0 {
			half = min(half, 0.35*math.Log2(x/b.xs[i-1]))
		}
		if i+1 < len(b.xs) {
			half = min(half, 0.35*math.Log2(b.xs[i+1]/x))
		}
		left, right := trX(x/math.Exp2(half)), trX(x*math.Exp2(half))
		var bottom float64
		for layer, heights := range b.layers {
			top := bottom + heights[i]
			rect := []vg.Point{
				{X: left, Y: trY(bottom)}, {X: left, Y: trY(top)},
				{X: right, Y: trY(top)}, {X: right, Y: trY(bottom)},
			}
			c.FillPolygon(b.colors[layer], c.ClipPolygonXY(rect))
			bottom = top
		}
	}
}

// DataRange implements plot.DataRanger.
func (b *stackedBars) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, xmax = math.Inf(1), math.Inf(-1)
	for i, x := range b.xs {
		xmin, xmax = min(xmin, x), max(xmax, x)
		var sum float64
		for _, heights := range b.layers {
			sum += heights[i]
		}
		ymax = max(ymax, sum)
	}
	return xmin, xmax, 0, ymax
}

// swatch is the legend entry of a bar colour.
type swatch struct{ color color.Color }

// Thumbnail implements plot.Thumbnailer.
func (s swatch) Thumbnail(c *draw.Canvas) {
	c.FillPolygon(s.color, []vg.Point{
		{X: c.Min.X, Y: c.Min.Y}, {X: c.Min.X, Y: c.Max.Y},
		{X: c.Max.X, Y: c.Max.Y}, {X: c.Max.X, Y: c.Min.Y},
	})
}

// npTicks is the ticker of the np axis: a tick at every process count of
// the sweep, labelled where the labels do not crowd each other. Labels are
// chosen from the largest np (the one a reader looks for) down, each at
// least 1/(maxNPLabels−1) of the axis below the previous one on the log
// scale: up to maxNPLabels doublings are all labelled, more get every
// other label or fewer.
type npTicks []int

const maxNPLabels = 12

// Ticks implements plot.Ticker.
func (nps npTicks) Ticks(lo, hi float64) []plot.Tick {
	if len(nps) == 0 {
		return nil
	}
	gap := math.Log2(float64(nps[len(nps)-1])/float64(nps[0])) / (maxNPLabels - 1)
	lastLabelled := math.Inf(1) // log₂ of the last labelled np
	ticks := make([]plot.Tick, len(nps))
	for i := len(nps) - 1; i >= 0; i-- {
		v := float64(nps[i])
		ticks[i].Value = v
		if x := math.Log2(v); lastLabelled-x >= gap*(1-1e-9) {
			ticks[i].Label = strconv.Itoa(nps[i])
			lastLabelled = x
		}
	}
	return ticks
}

// powerOfTwoTicks labels a log axis at powers of two: 1/2, 1, 2, 4, … (at
// most about ten labels, every k-th power when the range is wide), up to
// max when it is positive; it falls back to plot.DefaultTicks when the
// range holds fewer than two.
type powerOfTwoTicks struct{ max float64 }

// Ticks implements plot.Ticker.
func (t powerOfTwoTicks) Ticks(lo, hi float64) []plot.Tick {
	if t.max > 0 {
		hi = min(hi, t.max)
	}
	if !(lo > 0) || !(hi >= lo) {
		return plot.DefaultTicks{}.Ticks(lo, hi)
	}
	first, last := int(math.Ceil(math.Log2(lo)-1e-9)), int(math.Floor(math.Log2(hi)+1e-9))
	if last-first < 1 {
		return plot.DefaultTicks{}.Ticks(lo, hi)
	}
	step := (last-first)/10 + 1
	var ticks []plot.Tick
	for k := first; k <= last; k++ {
		t := plot.Tick{Value: math.Exp2(float64(k))}
		if k%step == 0 {
			t.Label = strconv.FormatFloat(t.Value, 'g', -1, 64)
		}
		ticks = append(ticks, t)
	}
	return ticks
}

// This file checks that a real viewer opens the Chrome traces: speedscope,
// pinned in testdata/viewer, in headless Chromium.

package trace

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// speedscopeApp is where npm ci in testdata/viewer puts speedscope's built
// web app.
const speedscopeApp = "testdata/viewer/node_modules/speedscope/dist/release"

// TestChromeInSpeedscope writes Chrome traces of real runs (stencil2d at
// np 4: nonblocking requests as async slices, message flows, collectives;
// lockcontention: pool threads) and of modeled ones (predict run --trace
// of stencil2d, also on the ideal machine, waitirecv and lockcontention:
// slices that abut to the picosecond, calls that take no time, several at
// one time), loads each into speedscope in headless Chromium
// (speedscope's #profileURL= parameter, from an httptest server) and
// checks what the viewer shows: it imported the file as Trace Event
// Format, without an alert, a warning, an error or its error screen; it
// lists one profile per rank thread that has calls that take time, named
// by our metadata events, each weighing the time in the thread's calls;
// its sandwich view of the first thread lists exactly that thread's calls
// that take time (the others are instants, which speedscope does not
// read), each named by its operation and args and as long as the call.
// Negative controls: a truncated file and a file with overlapping calls
// make the viewer complain, and the test sees it.
//
// The test skips when Chromium (PREDICT_CHROMIUM, or chromium on PATH) or
// speedscope (npm ci in testdata/viewer) is missing, and fails instead when
// PREDICT_REQUIRE_VIEWER is set, as in CI.
func TestChromeInSpeedscope(t *testing.T) {
	v := findSpeedscope(t)
	traces := realTraces(t)
	modeled := modeledTraces(t)
	for _, c := range []struct {
		name string
		tr   testTrace
	}{
		{"real/stencil2d-np4", traces["stencil2d-np4.jsonl"]},
		{"real/lockcontention-np2", traces["lockcontention-np2.jsonl"]},
		{"modeled/stencil2d-np4", modeled["stencil2d-np4.jsonl"]},
		{"modeled/stencil2d-np4-ideal", modeled["stencil2d-np4-ideal.jsonl"]},
		{"modeled/waitirecv-np2", modeled["waitirecv-np2.jsonl"]},
		{"modeled/lockcontention-np2", modeled["lockcontention-np2.jsonl"]},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			tr := c.tr
			if len(tr.events) == 0 {
				t.Fatal("no such trace in testdata")
			}
			var b bytes.Buffer
			if err := WriteChrome(&b, tr.h, tr.events); err != nil {
				t.Fatal(err)
			}
			page := v.load(t, b.Bytes())
			if p := page.problems(); len(p) > 0 {
				t.Fatalf("speedscope reports problems:\n%s", strings.Join(p, "\n"))
			}
			checkSpeedscope(t, page, tr.events)
		})
	}

	stencil := traces["stencil2d-np4.jsonl"]
	t.Run("negative/truncated", func(t *testing.T) {
		t.Parallel()
		var b bytes.Buffer
		if err := WriteChrome(&b, stencil.h, stencil.events); err != nil {
			t.Fatal(err)
		}
		page := v.load(t, b.Bytes()[:b.Len()/2])
		if !slices.ContainsFunc(page.problems(), func(p string) bool {
			return strings.Contains(p, "Unrecognized format")
		}) || len(page.profiles) > 0 {
			t.Fatalf("speedscope accepted a truncated file: problems %q, %d profiles", page.problems(), len(page.profiles))
		}
	})
	t.Run("negative/overlapping", func(t *testing.T) {
		t.Parallel()
		// The first call of rank 0 ends halfway through its second: the
		// slices of the thread are no longer nested.
		events := slices.Clone(stencil.events)
		Sort(events)
		var calls []int
		for i, e := range events {
			if e.Rank == 0 && e.Thread == 0 && e.Kind != KindComplete {
				calls = append(calls, i)
			}
		}
		first, second := &events[calls[0]], &events[calls[1]]
		first.Exit = second.Enter + second.Duration()/2
		var b bytes.Buffer
		if err := WriteChrome(&b, stencil.h, events); err != nil {
			t.Fatal(err)
		}
		page := v.load(t, b.Bytes())
		if !slices.ContainsFunc(page.problems(), func(p string) bool {
			return strings.HasPrefix(p, "warn:") && strings.Contains(p, "Tried to end")
		}) {
			t.Fatalf("speedscope did not complain about overlapping calls: problems %q", page.problems())
		}
	})
}

// checkSpeedscope checks that page shows the Chrome trace of events.
func checkSpeedscope(t *testing.T, page speedscopePage, events []Event) {
	t.Helper()
	if page.title != "trace.json - speedscope" {
		t.Errorf("title %q: the trace was not loaded", page.title)
	}
	if !slices.Contains(page.log, "log: Importing as Trace Event Format profile") {
		t.Errorf("speedscope did not import the file as Trace Event Format: log %q", page.log)
	}

	// The calls of each thread that take time, in the order speedscope
	// sorts its profiles (calls that take none are instants, which
	// speedscope does not read).
	threads := map[threadKey][]*Event{}
	for i := range events {
		if e := &events[i]; e.Kind != KindComplete && e.Duration() > 0 {
			k := threadKey{e.Rank, e.Thread}
			threads[k] = append(threads[k], e)
		}
	}
	keys := make([]threadKey, 0, len(threads))
	for k := range threads {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b threadKey) int {
		if a.rank != b.rank {
			return a.rank - b.rank
		}
		return a.thread - b.thread
	})

	var want, got []string
	for _, k := range keys {
		want = append(want, fmt.Sprintf("rank %d (pid %d), %s (tid %d)", k.rank, k.rank, threadName(k.thread), k.thread))
	}
	if len(want) == 0 {
		t.Fatal("no call takes time: nothing to check")
	}
	for _, p := range page.profiles {
		got = append(got, p.name)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("speedscope lists the profiles\n\t%q\nwant one per rank thread\n\t%q", got, want)
	}
	for i, k := range keys {
		calls := threads[k]
		var busy Time
		for _, e := range calls {
			busy += e.Duration()
		}
		if !shownAs(page.profiles[i].weight, busy) {
			t.Errorf("profile %q: weight %q, want %v (the time in its calls)", page.profiles[i].name, page.profiles[i].weight, busy)
		}
	}

	// The sandwich view shows the first profile: one symbol per call, named
	// by its operation and args (speedscope names a slice "name JSON(args)").
	calls := map[string]*Event{}
	for _, e := range threads[keys[0]] {
		calls[eventName(e)+" "+string(chromeArgs(e))] = e
	}
	if len(page.symbols) != len(calls) {
		t.Errorf("sandwich view of %q: %d symbols, want %d (one per call)", want[0], len(page.symbols), len(calls))
	}
	for _, s := range page.symbols {
		e, ok := calls[s.name]
		if !ok {
			t.Errorf("sandwich view of %q: symbol %q is no call of the thread (or shown twice)", want[0], s.name)
			continue
		}
		delete(calls, s.name)
		if !shownAs(s.total, e.Duration()) || !shownAs(s.self, e.Duration()) {
			t.Errorf("sandwich view: %q total %q, self %q, want %v", s.name, s.total, s.self, e.Duration())
		}
	}
}

// shownDuration matches a duration as speedscope shows it: two decimals and
// a unit, then maybe a percentage.
var shownDuration = regexp.MustCompile(`^([0-9]+\.[0-9]{2})(ns|µs|ms|s)\b`)

// shownAs reports whether text shows d to speedscope's two decimals.
func shownAs(text string, d Time) bool {
	m := shownDuration.FindStringSubmatch(text)
	if m == nil {
		return false
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return false
	}
	unit := map[string]float64{"ns": 1e3, "µs": 1e6, "ms": 1e9, "s": 1e12}[m[2]]
	return math.Abs(v*unit-float64(d)) <= 0.0051*unit
}

// speedscope runs speedscope's web app in headless Chromium.
type speedscope struct {
	chromium string
	app      string // the built web app
	harness  []byte // the app's index.html, recording what the page reports
}

// harnessScript records the page's alerts, console messages and uncaught
// errors, as "kind: message", in a JSON list in the data-viewer-log
// attribute of the html element, where --dump-dom shows it. Speedscope
// reports an unrecognized file with alert(), which would otherwise block
// the headless page.
const harnessScript = `<script>
(function () {
  var log = [];
  function record(kind, args) {
    log.push(kind + ": " + Array.prototype.map.call(args, String).join(" "));
    document.documentElement.setAttribute("data-viewer-log", JSON.stringify(log));
  }
  window.alert = function (m) { record("alert", [m]); };
  ["log", "warn", "error"].forEach(function (kind) {
    var orig = console[kind];
    console[kind] = function () { record(kind, arguments); orig.apply(console, arguments); };
  });
  window.addEventListener("error", function (e) { record("exception", [e.message]); });
  window.addEventListener("unhandledrejection", function (e) { record("rejection", [e.reason]); });
})();
</script>
`

// findSpeedscope finds Chromium and speedscope, or skips the test (fails
// it when PREDICT_REQUIRE_VIEWER is set).
func findSpeedscope(t *testing.T) *speedscope {
	t.Helper()
	missing := func(format string, args ...any) {
		t.Helper()
		if os.Getenv("PREDICT_REQUIRE_VIEWER") != "" {
			t.Fatalf("PREDICT_REQUIRE_VIEWER is set, but "+format, args...)
		}
		t.Skipf(format, args...)
	}
	var chromium string
	if c, ok := os.LookupEnv("PREDICT_CHROMIUM"); ok {
		path, err := exec.LookPath(c)
		if err != nil {
			missing("no Chromium: PREDICT_CHROMIUM=%q: %v", c, err)
		}
		chromium = path
	} else {
		for _, name := range []string{"chromium", "chromium-browser"} {
			if path, err := exec.LookPath(name); err == nil {
				chromium = path
				break
			}
		}
		if chromium == "" {
			missing("no Chromium: neither chromium nor chromium-browser is on PATH (apt-get install chromium, or set PREDICT_CHROMIUM)")
		}
	}
	index, err := os.ReadFile(filepath.Join(speedscopeApp, "index.html"))
	if err != nil {
		missing("speedscope is not installed (cd trace/testdata/viewer && npm ci): %v", err)
	}
	at := bytes.Index(index, []byte("<script"))
	if at < 0 {
		t.Fatalf("%s/index.html loads no script", speedscopeApp)
	}
	harness := slices.Concat(index[:at], []byte(harnessScript), index[at:])
	return &speedscope{chromium: chromium, app: speedscopeApp, harness: harness}
}

// speedscopePage is what speedscope showed once it had loaded a file.
type speedscopePage struct {
	title    string
	log      []string // "kind: message", kind one of alert, log, warn, error, exception, rejection
	failed   bool     // speedscope showed its error screen
	profiles []struct{ name, weight string }
	symbols  []struct{ total, self, name string } // the sandwich view of the first profile
}

// problems returns the alerts, warnings and errors the page reported.
func (p *speedscopePage) problems() []string {
	var out []string
	for _, m := range p.log {
		if !strings.HasPrefix(m, "log: ") {
			out = append(out, m)
		}
	}
	if p.failed {
		out = append(out, "speedscope shows its error screen")
	}
	return out
}

// load serves the app and the Chrome trace data, opens the trace in the
// sandwich view, and returns the page once its virtual time ran out.
func (v *speedscope) load(t *testing.T, data []byte) speedscopePage {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle("/", http.FileServer(http.Dir(v.app)))
	mux.HandleFunc("/harness.html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(v.harness)
	})
	mux.HandleFunc("/trace.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(data)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	// A fresh profile, and nothing that reaches beyond the test server.
	profile, err := os.MkdirTemp("", "predict-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(profile) // best effort: Chromium's helpers may still be exiting

	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, v.chromium,
		"--headless", "--no-sandbox", "--disable-gpu", "--enable-unsafe-swiftshader",
		"--disable-quic", "--no-first-run", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--disable-extensions",
		"--user-data-dir="+profile, "--window-size=1280,2400",
		"--virtual-time-budget=20000", "--dump-dom",
		srv.URL+"/harness.html#profileURL=trace.json&view=sandwich")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", v.chromium, err, tail(stderr.String(), 2000))
	}
	page, err := parseSpeedscope(stdout.String())
	if err != nil {
		t.Fatalf("%v\nChromium's stderr:\n%s", err, tail(stderr.String(), 2000))
	}
	return page
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

var (
	domLog   = regexp.MustCompile(`<html\b[^>]*\sdata-viewer-log="([^"]*)"`)
	domTitle = regexp.MustCompile(`<title>([^<]*)</title>`)
	domRow   = regexp.MustCompile(`(?s)<tr\b[^>]*>(.*?)</tr>`)
	domCell  = regexp.MustCompile(`(?s)<td\b[^>]*>(.*?)</td>`)
	domTag   = regexp.MustCompile(`<[^>]*>`)
	domIndex = regexp.MustCompile(`^[0-9]+$`)
)

// parseSpeedscope reads the page from the DOM that Chromium dumped. The
// profile selector (rendered while hidden) is a table of rows "index, name,
// weight"; the sandwich view one of rows "total, self, symbol name".
func parseSpeedscope(dom string) (speedscopePage, error) {
	var p speedscopePage
	if !strings.Contains(dom, "</html>") {
		return p, fmt.Errorf("Chromium dumped no page: %q", tail(dom, 500))
	}
	if m := domLog.FindStringSubmatch(dom); m != nil {
		if err := json.Unmarshal([]byte(html.UnescapeString(m[1])), &p.log); err != nil {
			return p, fmt.Errorf("the page's log: %v", err)
		}
	}
	if m := domTitle.FindStringSubmatch(dom); m != nil {
		p.title = html.UnescapeString(m[1])
	}
	p.failed = strings.Contains(dom, "Something went wrong")
	for _, row := range domRow.FindAllStringSubmatch(dom, -1) {
		var cells []string
		for _, c := range domCell.FindAllStringSubmatch(row[1], -1) {
			cells = append(cells, strings.TrimSpace(html.UnescapeString(domTag.ReplaceAllString(c[1], ""))))
		}
		switch {
		case len(cells) != 3:
		case domIndex.MatchString(cells[0]):
			p.profiles = append(p.profiles, struct{ name, weight string }{cells[1], cells[2]})
		case shownDuration.MatchString(cells[0]):
			p.symbols = append(p.symbols, struct{ total, self, name string }{cells[0], cells[1], cells[2]})
		}
	}
	return p, nil
}

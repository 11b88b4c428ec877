package report_test

import (
	"bytes"
	"context"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/kvlint/kvlint/report"
	"github.com/kvlint/kvlint/verify"
)

// chromium is Debian's headless browser, when the machine has it.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no chromium or chromium-browser on PATH: the page is checked by structure only (apt-get install chromium)")
	return ""
}

// runBrowser runs headless Chromium on the page with args, in a profile of
// its own; root (CI) needs --no-sandbox.
func runBrowser(t *testing.T, bin, page string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	all := append([]string{
		"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
		"--user-data-dir=" + t.TempDir(), "--window-size=1280,2000",
	}, args...)
	all = append(all, "file://"+page)
	cmd := exec.CommandContext(ctx, bin, all...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", bin, strings.Join(args, " "), err, stderr.String())
	}
	return stdout.Bytes()
}

func TestHTMLInChromium(t *testing.T) {
	bin := chromium(t)
	res := checked(t, "../examples/incident")
	rep, err := verify.Run(context.Background(), res, verify.Options{Seed: 1, Samples: 60})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := report.CheckHTML(&out, res, rep); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "report.html")
	if err := os.WriteFile(file, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}

	// The DOM the browser built has the bars, their segments, the demand
	// markers and the CDF curves.
	dom, err := html.Parse(bytes.NewReader(runBrowser(t, bin, file, "--dump-dom")))
	if err != nil {
		t.Fatal(err)
	}
	sec := section(t, dom, "llama70b")
	kinds, _ := segments(t, server(t, sec, "llama70b-decode/leader"))
	if kinds["kv"] <= 0 || kinds["weights"] <= 0 {
		t.Errorf("the browser's decode bar: %v", kinds)
	}
	if n := len(all(sec, byClass("demand"))); n != 2 {
		t.Errorf("the browser's DOM has %d demand markers, want 2 (prefill, decode)", n)
	}
	if n := len(all(sec, func(n *html.Node) bool { return n.Data == "polyline" })); n != 4 {
		t.Errorf("the browser's DOM has %d CDF curves, want one per arm (4)", n)
	}

	// The screenshot is drawn: not blank, and with the KV pool's green
	// and the HIT-cross curve's orange, which only the bars and the CDF use.
	shot := filepath.Join(dir, "report.png")
	runBrowser(t, bin, file, "--screenshot="+shot, "--hide-scrollbars")
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	near := func(c color.Color, r, g, b uint8) bool {
		cr, cg, cb, _ := c.RGBA()
		d := func(x uint32, y uint8) int { return max(int(x>>8)-int(y), int(y)-int(x>>8)) }
		return d(cr, r) < 12 && d(cg, g) < 12 && d(cb, b) < 12
	}
	var inked, kvGreen, hitRed int
	bounds := img.Bounds()
	for y := bounds.Min.Y; y < bounds.Max.Y; y += 2 {
		for x := bounds.Min.X; x < bounds.Max.X; x += 2 {
			c := img.At(x, y)
			if !near(c, 255, 255, 255) {
				inked++
			}
			if near(c, 0x3c, 0x9d, 0x5d) {
				kvGreen++
			}
			if near(c, 0xe8, 0x59, 0x0c) {
				hitRed++
			}
		}
	}
	total := bounds.Dx() * bounds.Dy() / 4
	if inked < total/50 {
		t.Errorf("the screenshot is nearly blank: %d of %d sampled pixels are not white", inked, total)
	}
	if kvGreen < 200 {
		t.Errorf("the screenshot shows %d KV-pool pixels: the bars were not drawn", kvGreen)
	}
	if hitRed < 20 {
		t.Errorf("the screenshot shows %d HIT-cross pixels: the CDF was not drawn", hitRed)
	}
}

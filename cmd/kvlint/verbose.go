package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/kvlint/kvlint/config"
	"github.com/kvlint/kvlint/parsers"
)

// verboseLog is what -v/--verbose adds on standard error, as golangci-lint
// -v and actionlint -verbose write their logs there (rhysd/actionlint@011a6d15
// command.go Command.Main: opts.LogWriter = cmd.Stderr): the files checked
// with the format each was read as, and how long each phase took. A nil
// *verboseLog says nothing.
type verboseLog struct {
	w      io.Writer
	phases []phaseTime
	start  time.Time
}

type phaseTime struct {
	name string
	d    time.Duration
}

func newVerboseLog(w io.Writer, on bool) *verboseLog {
	if !on {
		return nil
	}
	return &verboseLog{w: w, start: time.Now()}
}

// printf writes one line of the log.
func (v *verboseLog) printf(format string, args ...any) {
	if v == nil {
		return
	}
	fmt.Fprintf(v.w, "kvlint: "+format+"\n", args...)
}

// phase runs fn and records how long it took under name.
func (v *verboseLog) phase(name string, fn func() error) error {
	if v == nil {
		return fn()
	}
	t := time.Now()
	err := fn()
	v.phases = append(v.phases, phaseTime{name, time.Since(t)})
	return err
}

// discovered lists what discovery hands the parsers for paths, one line per
// file, chart or module with the format it is read as. It walks the paths
// with the run's exclusions (.kvlint.yaml exclude, --exclude) once more,
// only under -v: the run itself keeps no list of them.
func (v *verboseLog) discovered(paths []string, cfg *config.Config, exclude []string) {
	if v == nil {
		return
	}
	var files []parsers.File
	_ = v.phase("discovery", func() error {
		ig := &parsers.Ignore{}
		ig.Add("", cfg.Exclude)
		ig.Add("", exclude)
		files, _ = parsers.Discover(paths, ig)
		return nil
	})
	for _, f := range files {
		v.printf("checking %s (%s)", f.Path, f.Kind)
	}
	v.printf("%d %s checked", len(files), plural(len(files), "input", "inputs"))
}

// timings writes the phases and the total.
func (v *verboseLog) timings() {
	if v == nil {
		return
	}
	parts := make([]string, 0, len(v.phases)+1)
	for _, p := range v.phases {
		parts = append(parts, fmt.Sprintf("%s %s", p.name, round(p.d)))
	}
	parts = append(parts, fmt.Sprintf("total %s", round(time.Since(v.start))))
	v.printf("timings: %s", strings.Join(parts, ", "))
}

func round(d time.Duration) time.Duration {
	if d >= time.Second {
		return d.Round(time.Millisecond)
	}
	return d.Round(time.Microsecond)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// The bench tag keeps this driver out of `go install ./...`, which is how
// pre-commit installs a language: golang hook: only kvlint is installed.
//go:build bench

// Command kvlint-bench measures kvlint on generated repositories (see
// internal/benchrepo): the wall time and peak memory of `kvlint check`, a
// parse-only floor (discovery and parsing of the same files, no rules), and
// `conftest test` with an equivalent Rego policy over the same Kubernetes
// manifests. It prints the ratios and writes them to docs/PERFORMANCE.md.
//
//	go run ./cmd/kvlint-bench -kvlint bin/kvlint -conftest /path/to/conftest -sizes 5000,50000
//	go run ./cmd/kvlint-bench generate DIR 50000    # keep one repository, to profile
//
// Each tool runs as a subprocess, so its peak memory is the kernel's
// maximum resident set size (rusage ru_maxrss) of that process.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/kvlint/kvlint/internal/benchrepo"
	"github.com/kvlint/kvlint/internal/memlimit"
	"github.com/kvlint/kvlint/parsers"
)

func main() {
	if len(os.Args) == 3 && os.Args[1] == "parse-only" {
		parseOnly(os.Args[2])
		return
	}
	if len(os.Args) == 4 && os.Args[1] == "generate" {
		// Keeps a repository for profiling: kvlint-bench generate DIR FILES.
		n, err := strconv.Atoi(os.Args[3])
		must(err)
		st, err := benchrepo.Generate(os.Args[2], n, 42)
		must(err)
		fmt.Printf("%d files (%d MB) in %s\n", st.Files, st.Bytes>>20, os.Args[2])
		return
	}
	kvlint := flag.String("kvlint", "bin/kvlint", "the kvlint binary to measure")
	conftest := flag.String("conftest", "", "the conftest binary; empty skips the comparison")
	conftestVersion := flag.String("conftest-version", "", "conftest's version, for the report")
	sizes := flag.String("sizes", "5000,50000", "repository sizes in files, comma-separated")
	out := flag.String("out", "docs/PERFORMANCE.md", "the report to write; empty writes none")
	command := flag.String("command", "make bench", "the command named in the report as the one that produced it")
	flag.Parse()

	self, err := os.Executable()
	must(err)
	var rows []row
	for _, s := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		must(err)
		rows = append(rows, measureSize(n, *kvlint, self, *conftest))
	}
	notes := ""
	if *out != "" {
		notes = handNotes(*out)
	}
	report := render(rows, *conftest != "", *conftestVersion, *command, notes)
	fmt.Print(report)
	if *out != "" {
		must(os.WriteFile(*out, []byte(report), 0o644))
		fmt.Fprintf(os.Stderr, "wrote %s\n", *out)
	}
}

// parseOnly is the floor: what kvlint check does before any rule runs,
// under the same memory settings as kvlint (internal/memlimit).
func parseOnly(dir string) {
	defer memlimit.Follow()()
	files, errs := parsers.Discover([]string{dir}, nil)
	p := parsers.ParseFileSet(files)
	fmt.Printf("%d files, %d servers, %d errors\n", len(files), len(p.Servers), len(errs)+len(p.Errors))
}

type run struct {
	wall   time.Duration
	maxRSS int64 // bytes
	out    string
}

type row struct {
	files      int
	stats      benchrepo.Stats
	check      run
	parse      run
	conftest   run
	checkK8s   run // kvlint check on the files conftest reads
	kubernetes int
}

func measureSize(n int, kvlint, self, conftest string) row {
	dir, err := os.MkdirTemp("", fmt.Sprintf("kvlint-bench-%d-", n))
	must(err)
	defer os.RemoveAll(dir)
	st, err := benchrepo.Generate(dir, n, 42)
	must(err)
	fmt.Fprintf(os.Stderr, "%d files (%d MB) in %s\n", st.Files, st.Bytes>>20, dir)
	r := row{files: st.Files, stats: st, kubernetes: st.Kubernetes}
	// A first run warms the page cache so no tool pays for the disk.
	measure(self, "parse-only", dir)
	r.parse = measure(self, "parse-only", dir)
	r.check = measure(kvlint, "check", "--format", "json", dir)
	if conftest != "" {
		policy := filepath.Join(dir, "policy")
		must(os.MkdirAll(policy, 0o755))
		must(os.WriteFile(filepath.Join(policy, "kv101.rego"), []byte(conftestPolicy), 0o644))
		k8s := filepath.Join(dir, benchrepo.KubernetesDir)
		r.conftest = measure(conftest, "test", "--no-color", "--policy", policy, k8s)
		r.checkK8s = measure(kvlint, "check", "--format", "json", k8s)
	}
	fmt.Fprintf(os.Stderr, "  check %s %d MiB, parse-only %s, conftest %s, check on its files %s\n",
		r.check.wall.Round(time.Millisecond), r.check.maxRSS>>20, r.parse.wall.Round(time.Millisecond),
		r.conftest.wall.Round(time.Millisecond), r.checkK8s.wall.Round(time.Millisecond))
	return r
}

// measure runs a tool once and reads its wall time and peak memory. Exit
// codes 1 (findings) and 3 (bad input) are results, not failures.
func measure(bin string, args ...string) run {
	cmd := exec.Command(bin, args...)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = os.Stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() == 2 || ee.ExitCode() > 3) {
		fmt.Fprintf(os.Stderr, "%s %s: %v\n%s", bin, strings.Join(args, " "), err, tail(stdout.String()))
		os.Exit(1)
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	return run{wall: wall, maxRSS: ru.Maxrss * 1024, out: tail(stdout.String())} // Linux reports KiB
}

func tail(s string) string {
	if len(s) > 300 {
		return s[len(s)-300:]
	}
	return s
}

func render(rows []row, withConftest bool, conftestVersion, command, notes string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Performance\n\nProduced by `%s` on %s/%s, %d cores (GOMAXPROCS), %s.\n\n",
		command, runtime.GOOS, runtime.GOARCH, runtime.GOMAXPROCS(0), time.Now().UTC().Format("2006-01-02"))
	b.WriteString(`The repositories are generated in a temporary directory by internal/benchrepo
(seed 42): 70% Kubernetes manifests (Deployment + Service, 2–4 KB, a third
serving SGLang), 13% shell scripts, 5% Dockerfiles, 3% compose files, 9%
Python files kvlint passes over, plus one Helm chart per 2,000 files and one
Terraform module per 2,500. Each tool runs once as a subprocess after a
warm-up run that fills the page cache; peak memory is the process's maximum
resident set size (rusage). "parse-only" is discovery and parsing of the
same files with no rules, under kvlint's memory settings (` + "`kvlint-bench parse-only DIR`" + `).
conftest reads the repository's k8s/ directory (the Kubernetes manifests)
with a policy equivalent to KV101 (pool smaller than the context window);
kvlint check runs again on that same directory, with all its rules, for the
comparison on the same files.

`)
	b.WriteString("| files | kvlint check | peak memory | parse-only | check / parse-only |")
	if withConftest {
		b.WriteString(" k8s/ files | kvlint check k8s/ | conftest k8s/ | conftest / kvlint, same files |")
	}
	b.WriteString("\n|---:|---:|---:|---:|---:|")
	if withConftest {
		b.WriteString("---:|---:|---:|---:|")
	}
	b.WriteString("\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %d | %s | %d MiB | %s | %.2f× |", r.files, secs(r.check.wall), r.check.maxRSS>>20,
			secs(r.parse.wall), r.check.wall.Seconds()/r.parse.wall.Seconds())
		if withConftest {
			fmt.Fprintf(&b, " %d | %s | %s | %.1f× |", r.kubernetes, secs(r.checkK8s.wall), secs(r.conftest.wall),
				r.conftest.wall.Seconds()/r.checkK8s.wall.Seconds())
		}
		b.WriteString("\n")
	}
	b.WriteString("\nTargets: kvlint check at least 5× faster than conftest on the same files, within 2× of the parse-only floor, under 300 MiB at 50,000 files. In this run:\n\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "- %d files: %s; %s", r.files,
			verdict(r.check.wall.Seconds()/r.parse.wall.Seconds() <= 2, "%.2f× the parse-only floor", r.check.wall.Seconds()/r.parse.wall.Seconds()),
			verdict(r.check.maxRSS < 300<<20 || r.files < 50000, "%d MiB peak", r.check.maxRSS>>20))
		if withConftest {
			ratio := r.conftest.wall.Seconds() / r.checkK8s.wall.Seconds()
			fmt.Fprintf(&b, "; %s", verdict(ratio >= 5, "%.1f× faster than conftest", ratio))
		}
		b.WriteString(".\n")
	}
	if withConftest {
		fmt.Fprintf(&b, "\nconftest %s, installed with `go install github.com/open-policy-agent/conftest@%s`.\n", conftestVersion, conftestVersion)
	} else {
		b.WriteString("\nconftest was not measured in this run (no -conftest binary was given).\n")
	}
	b.WriteString("\nThe policy conftest ran:\n\n```rego\n" + conftestPolicy + "```\n")
	b.WriteString("\n" + notesMarker + "\n")
	b.WriteString(notes)
	return b.String()
}

// notesMarker starts the part of the report written by hand (what the
// numbers mean, what changed since the last run); make bench keeps it.
const notesMarker = "<!-- Written by hand below this line; make bench keeps it. -->"

// handNotes returns the hand-written part of an earlier report, "" when
// there is none.
func handNotes(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	_, notes, _ := strings.Cut(string(data), notesMarker+"\n")
	return notes
}

// verdict renders a measurement and whether it meets its target.
func verdict(met bool, format string, args ...any) string {
	if met {
		return fmt.Sprintf(format, args...) + " (met)"
	}
	return fmt.Sprintf(format, args...) + " (**missed**)"
}

func secs(d time.Duration) string { return fmt.Sprintf("%.2f s", d.Seconds()) }

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "kvlint-bench:", err)
		os.Exit(1)
	}
}

// conftestPolicy is KV101 as a conftest user would write it: an SGLang
// container whose --max-total-tokens is below its --context-length.
const conftestPolicy = `package main

import rego.v1

flag_value(args, name) := args[i + 1] if {
	args[i] == name
}

deny contains msg if {
	input.kind == "Deployment"
	some c in input.spec.template.spec.containers
	"sglang.launch_server" in c.command
	pool := to_number(flag_value(c.args, "--max-total-tokens"))
	ctx := to_number(flag_value(c.args, "--context-length"))
	pool < ctx
	msg := sprintf("%s: KV pool %d tokens is smaller than the context window %d", [c.name, pool, ctx])
}
`

package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/kvlint/kvlint/analysis"
	"github.com/kvlint/kvlint/diag"
)

// JUnit XML as CI systems read it (GitLab artifacts:reports:junit, Jenkins,
// Azure Pipelines): <testsuites> of <testsuite name tests failures errors>
// of <testcase name classname>, each with at most one <failure message
// type> or <error message type>. kvlint writes one testsuite per checked
// file that has a server, a finding or an input error; one testcase per
// finding (failed when at or above --fail-on, passed otherwise: the run
// passes them too) and one per server without findings (passed), so a
// clean run still shows what was checked; and one errored testcase per
// input error.

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	File      string        `xml:"file,attr,omitempty"`
	Line      int           `xml:"line,attr,omitempty"`
	Failure   *junitProblem `xml:"failure"`
	Error     *junitProblem `xml:"error"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// CheckJUnit writes the run as JUnit XML; threshold is --fail-on.
// encoding/xml escapes markup in attributes and text; Clean escapes the
// controls XML 1.0 cannot hold at all.
func CheckJUnit(w io.Writer, res *analysis.Result, threshold diag.Severity) error {
	wd, _ := os.Getwd()
	suites := map[string]*junitSuite{}
	var order []string
	suite := func(file string) *junitSuite {
		name := "(command line)"
		if file != "" {
			name = Clean(workspacePath(file, wd))
		}
		if s, ok := suites[name]; ok {
			return s
		}
		suites[name] = &junitSuite{Name: name}
		order = append(order, name)
		return suites[name]
	}
	for _, e := range res.Errors {
		s := suite(e.Span.File)
		s.Cases = append(s.Cases, junitCase{
			Name: "input error at " + position(e.Span), Classname: "kvlint.input",
			File: s.Name, Line: e.Span.Line,
			Error: &junitProblem{Message: Clean(e.Message), Type: "input-error", Text: position(e.Span) + ": " + Clean(e.Message)},
		})
		s.Errors++
	}
	hasFinding := map[int]bool{}
	for _, f := range res.Findings {
		if f.Suppression != nil {
			continue
		}
		hasFinding[f.Server] = true
		s := suite(f.Span.File)
		c := junitCase{
			Name: Clean(f.Rule) + " at " + position(f.Span), Classname: "kvlint." + Clean(f.Rule),
			File: s.Name, Line: f.Span.Line,
		}
		text := fmt.Sprintf("%s: %s %s: %s", position(f.Span), Clean(f.Severity), Clean(f.Rule), Clean(f.Message))
		if name := serverName(res, f.Server); name != "" {
			c.Name += " [" + Clean(name) + "]"
			text += " [" + Clean(name) + "]"
		}
		if f.Level().AtLeast(threshold) {
			c.Failure = &junitProblem{Message: Clean(f.Message), Type: Clean(f.Severity), Text: text}
			s.Failures++
		} else {
			c.SystemOut = text
		}
		s.Cases = append(s.Cases, c)
	}
	for i, srv := range res.Servers {
		if srv == nil || hasFinding[i] {
			continue
		}
		s := suite(srv.Span.File)
		s.Cases = append(s.Cases, junitCase{
			Name: "server " + Clean(srv.Name), Classname: "kvlint.server",
			File: s.Name, Line: srv.Span.Line,
		})
	}
	all := junitSuites{Name: "kvlint"}
	slices.Sort(order)
	for _, name := range order {
		s := suites[name]
		s.Tests = len(s.Cases)
		all.Tests += s.Tests
		all.Failures += s.Failures
		all.Errors += s.Errors
		all.Suites = append(all.Suites, *s)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(all); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

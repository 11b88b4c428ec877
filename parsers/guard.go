package parsers

import (
	"fmt"
	"runtime/debug"
	"strings"
	"time"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
)

// DefaultFileTimeout is how long one file may take to parse, render or
// evaluate. Real manifests take milliseconds and the largest charts well
// under a second; a file still running after this long is stuck (a template
// that loops, an expression that explodes), and the run must go on.
const DefaultFileTimeout = 30 * time.Second

// maxMessageBytes bounds one diagnostic's message: an engine error that
// nests a thousand times (Helm's include recursion) must not print a
// hundred kilobytes.
const maxMessageBytes = 2000

// ParseWith is Parse with settings from the command line. It is the last
// line of defence for every format: a parser that panics or runs past
// opt.FileTimeout becomes a *diag.Diagnostic at the file, and the other files
// are still analysed.
func ParseWith(f File, opt Options) ([]*deploy.Server, []*diag.Diagnostic) {
	p := ParseAllWith(f, opt)
	return p.Servers, p.Errors
}

// ParseAllWith is ParseAll with settings from the command line, guarded as
// ParseWith is.
func ParseAllWith(f File, opt Options) Parsed {
	opt = withFiles(opt, f)
	p, ok := inWorker(f, opt)
	if ok {
		for _, e := range p.Errors {
			if e != nil {
				e.Message = clipMessage(e.Message)
			}
		}
	} else {
		p = guard(f, opt, func() Parsed { return parseAllWith(f, opt) })
	}
	if len(p.Servers) == 0 && len(p.Errors) == 0 && (f.Kind == KindHelm || f.Kind == KindTerraform) {
		// A chart or module that deploys nothing kvlint recognised, yet
		// names an engine (a template its values switch off, a resource
		// kind kvlint does not read), is noted like a file read whole.
		p.Unlaunched = unlaunchedInDir(f, opt)
	}
	p.Files = opt.Files
	return p
}

// guard runs parse on its own goroutine so that neither a panic nor a parse
// that never ends can take the run down. A parse that times out is
// abandoned: its goroutine may keep a core busy until the process exits,
// which is better than a pre-commit hook that never returns.
func guard(f File, opt Options, parse func() Parsed) Parsed {
	timeout := opt.FileTimeout
	if timeout <= 0 {
		timeout = DefaultFileTimeout
	}
	done := make(chan Parsed, 1) // buffered: an abandoned parse never blocks
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- Parsed{Errors: []*diag.Diagnostic{panicError(f, r, debug.Stack())}}
			}
		}()
		done <- parse()
	}()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case p := <-done:
		for _, e := range p.Errors {
			if e != nil {
				e.Message = clipMessage(e.Message)
			}
		}
		return p
	case <-timer.C:
		return Parsed{Errors: []*diag.Diagnostic{diag.Errorf(deploy.Span{File: f.Path},
			"%s took longer than %s, kvlint's limit for one file; it was not analysed", doing(f.Kind), timeout)}}
	}
}

// doing names the work a file of kind k needs, for the timeout message.
func doing(k Kind) string {
	switch k {
	case KindHelm:
		return "rendering the chart"
	case KindTerraform:
		return "evaluating the module"
	}
	return "parsing the file"
}

// panicError reports a parser's panic as a diagnostic: it is kvlint's bug,
// not the user's, so the message says so and carries the frame that failed.
func panicError(f File, r any, stack []byte) *diag.Diagnostic {
	return diag.Errorf(deploy.Span{File: f.Path},
		"internal error while %s (please report it with this file): %v\n%s", doing(f.Kind), r, clipMessage(string(stack)))
}

// clipMessage keeps the head and tail of an overlong message: the head says
// what failed, the tail usually says why.
func clipMessage(m string) string {
	if len(m) <= maxMessageBytes {
		return m
	}
	head := strings.ToValidUTF8(m[:maxMessageBytes*2/3], "")
	tail := strings.ToValidUTF8(m[len(m)-maxMessageBytes/3:], "")
	return fmt.Sprintf("%s … (%d bytes omitted) … %s", head, len(m)-len(head)-len(tail), tail)
}

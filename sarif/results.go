package sarif

import (
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	gosarif "github.com/owenrumney/go-sarif/v2/sarif"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
)

// builder holds what results share: where URIs are anchored, the files read
// so far, and notes for the invocation.
type builder struct {
	loc   locator
	src   sources
	notes []*gosarif.Notification
}

// result turns a finding into a SARIF result pointing at its span.
func (b *builder) result(f diag.Diagnostic, ruleID string, ruleIndex int, server string) *gosarif.Result {
	r := gosarif.NewRuleResult(ruleID).
		WithRuleIndex(ruleIndex).
		WithLevel(level(f.Level())).
		WithMessage(gosarif.NewTextMessage(f.Message + offFileOrigin(f.Origin)))
	r.AddLocation(b.location(f.Span, ""))
	r.PartialFingerprints = map[string]any{"primaryLocationLineHash": b.lineHash(f)}

	// Only a step in a file is a location; a command-line --set is named
	// in the message instead (a URI made of it would point nowhere).
	inFile := f.Origin.Spans()
	n := 0
	for _, st := range f.Origin {
		if !st.InFile() {
			continue
		}
		if n == maxRelatedLocations {
			b.notes = append(b.notes, warning(fmt.Sprintf(
				"%s at %s: only the first %d of %d steps of the value's provenance are listed (GitHub's limit per result)",
				f.Rule, f.Span, maxRelatedLocations, len(inFile))))
			break
		}
		n++
		loc := b.location(st.Span, stepMessage(st.Kind))
		loc.Id = ptr(uint(n))
		r.RelatedLocations = append(r.RelatedLocations, loc)
	}

	if s := f.Suppression; s != nil {
		r.AddSuppression(b.suppression(f, s))
	}
	if fx := b.fixes(f.Fixes); len(fx) > 0 {
		r.Fixes = fx
	}

	props := gosarif.Properties{"severity": f.Severity}
	if server != "" {
		props["server"] = server
	}
	r.Properties = props
	return r
}

// stepMessage says what a related location is to the value, in the
// direction the value flows: where it was set, a place it went through on
// the way, or where it was used.
func stepMessage(k deploy.StepKind) string {
	switch k {
	case deploy.StepTemplate:
		return "the value is used here"
	case deploy.StepInclude, deploy.StepVariable, deploy.StepReference:
		return "the value passes through here"
	case deploy.StepWritten:
		return "the value is written here"
	case deploy.StepImage:
		return "the image's entrypoint supplies the value"
	}
	return "the value was set here"
}

// offFileOrigin names the steps of an origin that are no place in a file,
// as a sentence to add to the result's message.
func offFileOrigin(o deploy.Origin) string {
	var out string
	for _, st := range o {
		if st.InFile() || st.Text == "" {
			continue
		}
		switch st.Kind {
		case deploy.StepSet:
			out += " (the value was set on the command line: " + st.Text + ")"
		case deploy.StepEnv:
			out += " (the value was set by the environment variable " + st.Text + ")"
		default:
			out += " (the value comes from " + st.Text + ")"
		}
	}
	return out
}

// location is a physical location at span; msg, when set, says what the
// location is to the result.
func (b *builder) location(span deploy.Span, msg string) *gosarif.Location {
	phys := &gosarif.PhysicalLocation{ArtifactLocation: b.loc.artifact(span.File)}
	if reg := b.region(span); reg != nil {
		phys.Region = reg
	}
	loc := &gosarif.Location{PhysicalLocation: phys}
	if msg != "" {
		loc.Message = gosarif.NewTextMessage(msg)
	}
	return loc
}

// region converts a span (1-based, byte columns, end one past the last byte)
// into a SARIF region (1-based, UTF-16 columns, endColumn one past the last
// character: the same convention). A span without a line has no region: the
// location is the whole file.
func (b *builder) region(span deploy.Span) *gosarif.Region {
	if span.Line < 1 {
		return nil
	}
	src := b.src.get(span.File)
	startCol := 1
	if span.Col >= 1 {
		startCol = src.utf16Column(span.Line, span.Col)
	}
	endLine := max(span.EndLine, span.Line)
	endCol := 0
	switch {
	case span.EndCol >= 1 && span.EndLine >= span.Line:
		endCol = src.utf16Column(endLine, span.EndCol)
	case span.Col < 1:
		endCol = src.lineEnd(endLine) // the whole line
	default:
		endCol = startCol + 1 // one character: all that is known
	}
	if endLine == span.Line && endCol < startCol {
		endCol = startCol
	}
	reg := gosarif.NewRegion().WithStartLine(span.Line).WithStartColumn(startCol).WithEndLine(endLine)
	if endCol >= 1 {
		reg.WithEndColumn(endCol)
	}
	return reg
}

// lineHash is the finding's primaryLocationLineHash: GitHub's own hash of
// the line (see LineHashes). When the file cannot be read (it changed or
// went away after the run read it), a hash of what is known stands in:
// the path, the rule and the message, so the value is still stable across
// runs that see the same thing.
func (b *builder) lineHash(f diag.Diagnostic) string {
	if h := b.src.get(f.Span.File).lineHash(f.Span.Line); h != "" {
		return h
	}
	sum := sha256.Sum256([]byte(f.Span.File + "\x00" + f.Rule + "\x00" + f.Message))
	return hex.EncodeToString(sum[:8]) + ":1"
}

// suppression marks a silenced finding. Comments and annotations in the
// files themselves are inSource; configuration and baselines are external.
// Every property is set: the library writes absent ones as null, which the
// schema rejects.
func (b *builder) suppression(f diag.Diagnostic, s *diag.Suppression) *gosarif.Suppression {
	kind := "external"
	switch s.Kind {
	case "inline", "file", "annotation":
		kind = "inSource"
	}
	what, ok := suppressionWhat[s.Kind]
	if !ok {
		what = "suppressed by " + s.Kind
	}
	var loc *gosarif.Location
	if s.Span.File != "" {
		loc = b.location(s.Span, what)
	} else {
		loc = &gosarif.Location{Message: gosarif.NewTextMessage(what)}
	}
	key := fmt.Sprintf("%s\x00%s\x00%s\x00%d\x00%s\x00%s", f.Rule, f.Span.File, f.Message, f.Span.Line, s.Kind, s.Span)
	return gosarif.NewSuppression(kind).
		WithStatus("accepted").
		WithGuid(nameUUID(key)).
		WithJustifcation(s.Reason).
		WithLocation(loc)
}

// suppressionWhat names each kind of suppression as the user wrote it.
var suppressionWhat = map[string]string{
	"inline":     "kvlint:ignore comment",
	"file":       "kvlint:ignore-file comment",
	"annotation": "kvlint.io/ignore annotation",
	"config":     "ignore entry in .kvlint.yaml",
	"baseline":   "finding in the baseline",
}

// nameUUID is a name-based (version 5, RFC 9562) UUID of key: the same
// suppression keeps the same GUID from run to run.
func nameUUID(key string) string {
	sum := sha1.Sum([]byte("kvlint.suppression\x00" + key))
	u := sum[:16]
	u[6] = u[6]&0x0f | 0x50 // version 5
	u[8] = u[8]&0x3f | 0x80 // RFC variant
	h := hex.EncodeToString(u)
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// inputError is a tool execution notification for input kvlint could not
// analyse: GitHub shows these on the tool's status page, and the run's exit
// code is 3.
func (b *builder) inputError(e *diag.Diagnostic) *gosarif.Notification {
	n := gosarif.NewNotification().WithLevel("error").WithTextMessage(e.Message)
	if e.Span.File != "" {
		n.AddLocation(b.location(e.Span, ""))
	}
	n.WithDescriptor(&gosarif.ReportingDescriptorReference{Id: ptr("input-error")})
	return n
}

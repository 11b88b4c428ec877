package fixes

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
	"github.com/kvlint/kvlint/source"
)

// A fix edits only text the user wrote as a literal, in the file that
// writes it: the span of each replacement is checked against the file's
// text before the fix is offered, so `kvlint fix --write` never splices
// into a span that has moved or holds something else.

// text is the text of the file that span names and the byte offsets of
// span in it; ok is false when the run did not read the file or the span
// lies outside it.
func text(files *source.Set, span deploy.Span) (f *source.File, ix *source.Index, start, end int, ok bool) {
	if files == nil || span.File == "" || span.IsZero() {
		return nil, nil, 0, 0, false
	}
	f = files.File(span.File)
	if f == nil {
		return nil, nil, 0, 0, false
	}
	ix = indexOf(f)
	start = ix.Offset(span.Line, span.Col)
	end = ix.Offset(span.EndLine, span.EndCol)
	if span.EndLine == 0 {
		end = start
	}
	if start > end || end > len(f.Data) {
		return nil, nil, 0, 0, false
	}
	return f, ix, start, end, true
}

// indexOf is the line index kvlint's spans use in f: YAML's line breaks in
// YAML files (the lines yaml.v3 reports), "\n" elsewhere.
func indexOf(f *source.File) *source.Index {
	if f.Syntax == source.SyntaxYAML {
		return f.Index(source.YAML)
	}
	return f.Index(source.LF)
}

// setValue is the edit that writes newText in place of the value v: at v's
// own span when the literal is written there, else at the step of its
// origin that writes it (a shell assignment, a values-file leaf, a tfvars
// attribute). It returns why not when no step writes it as a literal.
func setValue(files *source.Set, v deploy.Value, newText string) ([]diag.Replacement, string) {
	raw := strings.TrimSpace(v.Raw)
	if !v.Known || raw == "" {
		return nil, fmt.Sprintf("the value %q is not known statically", v.Raw)
	}
	if v.Origin.Inferred() {
		return nil, "the value reaches the flag through a template that computes on it, so no literal sets it as written"
	}
	if r, ok := literalAt(files, v.Span, raw, newText, false); ok {
		return []diag.Replacement{r}, ""
	}
	// The innermost step that writes the literal is where it is set: a
	// shell assignment X=8, a values leaf, a tfvars attribute, a default.
	for i := len(v.Origin) - 1; i >= 0; i-- {
		st := v.Origin[i]
		if !st.InFile() {
			continue
		}
		switch st.Kind {
		case deploy.StepAssignment, deploy.StepEnv, deploy.StepValuesFile, deploy.StepSet,
			deploy.StepTFVars, deploy.StepVariableDefault:
			if r, ok := literalAt(files, st.Span, raw, newText, true); ok {
				return []diag.Replacement{r}, ""
			}
		}
	}
	// A value set outside every file (a command-line --set) is changed
	// where it was given.
	if st, ok := firstWithout(v.Origin); ok {
		return nil, fmt.Sprintf("the value is given on the command line (%s): change it there", st.Text)
	}
	for _, st := range v.Origin {
		switch st.Kind {
		case deploy.StepTemplate, deploy.StepInclude:
			return nil, fmt.Sprintf("the value is written by a template expression (%s), not a literal", st.Span)
		case deploy.StepReference:
			return nil, fmt.Sprintf("the value is computed from a reference (%s), not written as a literal", st.Span)
		case deploy.StepImage:
			return nil, "the value is the image's default command, which the deployment does not write"
		}
	}
	return nil, fmt.Sprintf("the text at %s is not the literal %q", v.Span, raw)
}

func firstWithout(o deploy.Origin) (deploy.Step, bool) {
	for _, st := range o {
		if !st.InFile() && st.Text != "" {
			return st, true
		}
	}
	return deploy.Step{}, false
}

// literalAt is the replacement of raw inside span with newText, when the
// span's text is raw (or raw in quotes, whose quotes stay). With tail set,
// raw may end the span's text after an "=" or ":" (an assignment X=8 or a
// key: value line whose span covers the whole line).
func literalAt(files *source.Set, span deploy.Span, raw, newText string, tail bool) (diag.Replacement, bool) {
	f, ix, start, end, ok := text(files, span)
	if !ok {
		return diag.Replacement{}, false
	}
	t := string(f.Data[start:end])
	switch {
	case t == raw:
	case len(t) >= 2 && isQuote(t[0]) && t[len(t)-1] == t[0] && t[1:len(t)-1] == raw:
		start, end = start+1, end-1
	case tail:
		body := strings.TrimRight(t, " \t\r\n")
		unq := body
		q := 0
		if n := len(body); n >= 2 && isQuote(body[n-1]) {
			q = 1
			unq = body[:n-1]
		}
		if !strings.HasSuffix(unq, raw) {
			return diag.Replacement{}, false
		}
		before := strings.TrimRight(unq[:len(unq)-len(raw)], " \t")
		if q == 1 && strings.HasSuffix(before, body[len(body)-1:]) {
			before = strings.TrimRight(before[:len(before)-1], " \t")
		}
		if !strings.HasSuffix(before, "=") && !strings.HasSuffix(before, ":") {
			return diag.Replacement{}, false
		}
		end = start + len(unq)
		start = end - len(raw)
	default:
		return diag.Replacement{}, false
	}
	return diag.Replacement{Span: ix.Span(f.Name, start, end), NewText: newText}, true
}

func isQuote(c byte) bool { return c == '"' || c == '\'' }

// addFlag is the edit that adds flag with value to the launch of s, after
// its last argument, in the syntax that argument is written in: another
// item of a YAML block list (in the list's indentation and quoting),
// another element of a flow or JSON list (a Dockerfile exec form, a
// compose list), or two more shell words (a script, a RUN line, a command
// string). A launch assembled by a template, or whose last argument the
// run cannot place, gets a reason instead.
func addFlag(files *source.Set, s *deploy.Server, flag, value string) ([]diag.Replacement, string) {
	last, why := lastArgument(s)
	if why != "" {
		return nil, why
	}
	return insertAfter(files, last, flag, value)
}

// insertAfter is the edit that writes words as further arguments right
// after the argument last, in the syntax last is written in (see addFlag).
// Every word but the first is quoted where the syntax quotes values.
func insertAfter(files *source.Set, last deploy.Value, words ...string) ([]diag.Replacement, string) {
	f, ix, start, end, ok := text(files, last.Span)
	if !ok {
		return nil, fmt.Sprintf("the file %s that launches the server was not read", last.Span.File)
	}
	data := f.Data
	quote := byte(0)
	switch {
	case end-start >= 2 && isQuote(data[start]) && data[end-1] == data[start]:
		// The span holds the quotes (a Dockerfile exec form's JSON string).
		quote = data[start]
	case start > 0 && end < len(data) && isQuote(data[start-1]) && data[end] == data[start-1]:
		quote = data[start-1]
		start, end = start-1, end+1
	}
	lineStart := bytes.LastIndexByte(data[:start], '\n') + 1
	prefix := string(data[lineStart:start])
	trimmed := strings.TrimSpace(prefix)
	before := strings.TrimRight(string(data[lineStart:start]), " \t")
	after := strings.TrimLeft(string(data[end:min(len(data), end+64)]), " \t")
	at := ix.Span(f.Name, end, end)
	switch {
	case f.Syntax == source.SyntaxYAML && trimmed == "-":
		// A block sequence item: the next items go on lines of their own,
		// indented as this one. Kubernetes wants strings, so a value that
		// YAML would read as a number is quoted.
		indent := prefix[:strings.Index(prefix, "-")]
		lineEnd := end
		for lineEnd < len(data) && data[lineEnd] != '\n' && data[lineEnd] != '\r' {
			lineEnd++
		}
		q := "\""
		if quote != 0 {
			q = string(quote)
		}
		var ins strings.Builder
		for i, w := range words {
			if i == 0 && len(words) > 1 {
				ins.WriteString("\n" + indent + "- " + w)
				continue
			}
			ins.WriteString("\n" + indent + "- " + q + w + q)
		}
		return []diag.Replacement{{Span: ix.Span(f.Name, lineEnd, lineEnd), NewText: ins.String()}}, ""
	case (strings.HasSuffix(before, ",") || strings.HasSuffix(before, "[")) && (strings.HasPrefix(after, ",") || strings.HasPrefix(after, "]")):
		// A flow sequence or a JSON exec form: elements are quoted strings.
		q := "\""
		if quote == '\'' {
			q = "'"
		}
		if quote == 0 && f.Syntax == source.SyntaxDockerfile {
			return nil, "the last argument is not a JSON string, so the exec form cannot be extended faithfully"
		}
		var ins strings.Builder
		for _, w := range words {
			ins.WriteString(", " + q + w + q)
		}
		return []diag.Replacement{{Span: at, NewText: ins.String()}}, ""
	case f.Syntax == source.SyntaxYAML && quote != 0 && (strings.HasSuffix(before, ":") || trimmed == "-"):
		// A quoted YAML scalar holding one word: no room for more.
		return nil, "the last argument is a quoted YAML scalar of its own, not part of a command string kvlint can extend"
	}
	// A shell word: two more words after it (before a line continuation,
	// a redirection or the end of the command).
	return []diag.Replacement{{Span: at, NewText: " " + strings.Join(words, " ")}}, ""
}

// lastArgument is the argument of s written last in the file that launches
// it: the place a new flag goes.
func lastArgument(s *deploy.Server) (deploy.Value, string) {
	var best deploy.Value
	consider := func(v deploy.Value) string {
		if v.Span.IsZero() || v.Span.File != s.Span.File {
			return ""
		}
		for _, st := range v.Origin {
			switch st.Kind {
			case deploy.StepTemplate, deploy.StepInclude:
				return fmt.Sprintf("the launch is assembled by a template (%s): add the flag there by hand", st.Span)
			case deploy.StepImage:
				return "the launch's arguments are the image's default command, which the deployment does not write"
			}
		}
		if best.Span.IsZero() || after(v.Span, best.Span) {
			best = v
		}
		return ""
	}
	for _, v := range s.Args {
		if why := consider(v); why != "" {
			return deploy.Value{}, why
		}
	}
	for _, o := range s.Options {
		if why := consider(o.Written); why != "" {
			return deploy.Value{}, why
		}
	}
	for _, v := range s.Positionals {
		if why := consider(v); why != "" {
			return deploy.Value{}, why
		}
	}
	if why := consider(s.Model); why != "" {
		return deploy.Value{}, why
	}
	if best.Span.IsZero() {
		return deploy.Value{}, "kvlint found no argument of this launch written in " + s.Span.File
	}
	return best, ""
}

func after(a, b deploy.Span) bool {
	if a.EndLine != b.EndLine {
		return a.EndLine > b.EndLine
	}
	return a.EndCol > b.EndCol
}

// setFlag writes flag = value on s: over its value when the flag is given,
// else as a new flag after the last argument.
func setFlag(files *source.Set, s *deploy.Server, flag, value string) ([]diag.Replacement, string) {
	if v, ok := s.Args[flag]; ok {
		return setValue(files, v, value)
	}
	return addFlag(files, s, flag, value)
}

package suppress

import (
	"testing"

	"github.com/kvlint/kvlint/source"
)

// FuzzScan feeds any text to every format's scanner: none may panic, and
// every suppression covers lines inside the file, in order.
func FuzzScan(f *testing.F) {
	for _, seed := range []string{
		manifest,
		"args:   # kvlint:ignore KV101 -- r\n- --a\n",
		"x: |\n  # kvlint:ignore KV101 -- r\n  python3 \\\n  --a\n",
		"msg: \"open\n  # kvlint:ignore KV1 -- r\n",
		"a: [b, {c: 'd''e'}] # kvlint:ignore KV101\n",
		"{{- /* kvlint:ignore KV101 -- r */}}\n- x\n",
		"#!/bin/sh\n# kvlint:ignore KV101 -- r\npython3 \\\n --a 1\n",
		"if then ((\n# kvlint:ignore-file\n",
		"# escape=`\nCMD [\"a\", `\n \"b\"]\nRUN <<-EOF\n\t# x\n\tEOF\n# kvlint:ignore-file KV1 -- r\n",
		"resource \"x\" {\n  a = \"${b(\"c\")}\" /* kvlint:ignore KV101\n -- r */\n  h = <<EOT\n#\nEOT\n}\n",
		"\"${ { } }\" ] ) } /*",
		"kvlint.io/ignore: [1]\nmetadata: {annotations: {kvlint.io/ignore: 3}}\n",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, src string) {
		data := []byte(src)
		lines := len(textLines(source.NewIndex(data, source.LF)))
		for _, format := range []source.Syntax{source.SyntaxOther, source.SyntaxShell, source.SyntaxDockerfile, source.SyntaxYAML, source.SyntaxHCL} {
			for _, s := range scanFile("f", source.NewFile("f", data, format), format) {
				if s.span.Line < 1 || s.span.Col < 1 || s.span.EndLine < s.span.Line {
					t.Fatalf("format %d: suppression at %+v", format, s.span)
				}
				if s.problem == "" && s.kind != kindAnnotation && (s.from > s.to || s.to > lines || (s.from == 0 && s.to != 0)) {
					t.Fatalf("format %d: %s covers %d-%d of %d lines", format, s.text, s.from, s.to, lines)
				}
			}
		}
	})
}

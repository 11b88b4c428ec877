package shell

import (
	"fmt"
	"strings"
	"testing"
)

// doublingScript is a script of n lines, each doubling the variable x
// (x=$x$x), then a launch that uses it.
func doublingScript(n int) []byte {
	var b strings.Builder
	b.WriteString("#!/bin/sh\nx=ab\n")
	for range n {
		b.WriteString("x=$x$x\n")
	}
	b.WriteString("python3 -m sglang.launch_server --model-path \"$x\"\n")
	return []byte(b.String())
}

// argvScript is a script of n lines that double a list of words
// (A="$A $A"), then a launch that splits it into its argv.
func argvScript(n int) []byte {
	var b strings.Builder
	b.WriteString("#!/bin/sh\nA=--x\n")
	for range n {
		b.WriteString("A=\"$A $A\"\n")
	}
	b.WriteString("python3 -m sglang.launch_server --model-path m $A\n")
	return []byte(b.String())
}

// arrayScript is a script of n lines that double an array
// (A=("${A[@]}" "${A[@]}")), then a launch given all of its elements.
func arrayScript(n int) []byte {
	var b strings.Builder
	b.WriteString("#!/bin/bash\nA=(--x)\n")
	for range n {
		b.WriteString("A=(\"${A[@]}\" \"${A[@]}\")\n")
	}
	b.WriteString("python3 -m sglang.launch_server --model-path m \"${A[@]}\"\n")
	return []byte(b.String())
}

// chainScript is a script of n lines that copy the previous line's
// variable (A1=$A0, A2=$A1, ...): each value's origin is one step longer.
func chainScript(n int) []byte {
	var b strings.Builder
	b.WriteString("#!/bin/sh\nA0=m\n")
	for i := range n {
		fmt.Fprintf(&b, "A%d=$A%d\n", i+1, i)
	}
	fmt.Fprintf(&b, "python3 -m sglang.launch_server --model-path \"$A%d\"\n", n)
	return []byte(b.String())
}

// appendScript is a script of n lines that append a long literal to one
// variable (A+=...): the value grows linearly, its copies quadratically.
func appendScript(n int) []byte {
	var b strings.Builder
	b.WriteString("#!/bin/sh\nA=\n")
	for range n {
		b.WriteString("A+=" + strings.Repeat("x", 100) + "\n")
	}
	b.WriteString("python3 -m sglang.launch_server --model-path \"$A\"\n")
	return []byte(b.String())
}

// BenchmarkHostileExpansion measures the hostile doubling scripts of
// testdata/hostile/shell-doubling at several lengths: the budget should
// make their cost grow with the lines, not with what they would expand to.
func BenchmarkHostileExpansion(b *testing.B) {
	for _, n := range []int{1000, 30000} {
		for name, script := range map[string]func(int) []byte{"double": doublingScript, "argv": argvScript, "array": arrayScript, "chain": chainScript, "append": appendScript} {
			text := script(n)
			b.Run(fmt.Sprintf("%s/%d", name, n), func(b *testing.B) {
				for b.Loop() {
					Commands(Source{File: "x.sh", Text: text})
				}
			})
		}
	}
}

package terraform

import (
	"fmt"
	"strings"
	"testing"
)

func TestTooDeep(t *testing.T) {
	deep := strings.Repeat("[", maxNesting+1) + strings.Repeat("]", maxNesting+1)
	fine := strings.Repeat("[", maxNesting) + strings.Repeat("]", maxNesting)
	many := strings.Repeat("[", 5000)
	// at is the offset of the bracket that opens level maxNesting+1,
	// counting the string, heredoc and interpolation it is inside.
	tests := []struct {
		name     string
		src      string
		template bool
		at       int // -1: not too deep
	}{
		{"list at the limit", "x = " + fine + "\n", false, -1},
		{"list over the limit", "x = " + deep + "\n", false, 4 + maxNesting},
		{"brackets in a string", `x = "` + many + `"` + "\n", false, -1},
		{"escaped quote in a string", `x = "\"` + many + `"` + "\n", false, -1},
		{"brackets in comments", "# " + many + "\n// " + many + "\n/* " + many + " */\nx = 1\n", false, -1},
		{"brackets in a heredoc", "x = <<-EOT\n  " + many + "\n  EOT\ny = 1\n", false, -1},
		{"an interpolation in a string", `x = "${` + deep + `}"` + "\n", false, 7 + maxNesting - 2},
		{"an escaped interpolation", `x = "$${` + many + `"` + "\n", false, -1},
		{"an interpolation in a heredoc", "x = <<EOT\n${" + deep + "}\nEOT\n", false, 12 + maxNesting - 2},
		{"a template file's text", many + "\n", true, -1},
		{"a template file's interpolation", "a ${" + deep + "}\n", true, 4 + maxNesting - 1},
		{"JSON", `{"x": ` + deep + `}`, false, 6 + maxNesting - 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			at, deep := tooDeep([]byte(tt.src), tt.template)
			if tt.at < 0 {
				if deep {
					t.Errorf("too deep at %d, want fine", at)
				}
				return
			}
			if !deep || at != tt.at {
				t.Errorf("tooDeep = %d, %v; want %d, true", at, deep, tt.at)
			}
		})
	}
}

// A template whose parts already hold more than the cap is refused before
// it is evaluated: hclsyntax would build the whole string first, so the
// memory it needs, not the cap, decided the outcome in a worker. The
// file("missing.txt") part shows it: evaluated, it is an error of its own.
func TestTemplateRefusedBeforeBuilt(t *testing.T) {
	var b strings.Builder
	b.WriteString("locals {\n  a0 = \"" + strings.Repeat("a", 64) + "\"\n")
	for i := 1; i < 20; i++ {
		fmt.Fprintf(&b, "  a%d = \"${local.a%d}${local.a%d}\"\n", i, i-1, i-1)
	}
	b.WriteString("  a20 = \"x${local.a19}${local.a19}${file(\"missing.txt\")}\"\n}\n")
	dir := writeModule(t, map[string]string{"main.tf": b.String()})
	_, errs := ParseModule(dir, Options{})
	if len(errs) != 1 || !strings.Contains(errs[0].Message, "the result would be more than 32 MiB of text") {
		t.Fatalf("errors: %v", errs)
	}
	if got, want := at(dir, errs[0].Span), "main.tf:22:9-22:58"; got != want {
		t.Errorf("error at %s, want %s", got, want)
	}
}

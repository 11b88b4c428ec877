package source

import "testing"

func TestLineContext(t *testing.T) {
	tests := []struct {
		line            string
		syntax          Syntax
		comment, quoted bool
	}{
		{"# X", SyntaxShell, true, false},
		{"  # X", SyntaxYAML, true, false},
		{"a # X", SyntaxShell, true, false},
		{"a#X", SyntaxShell, false, false},
		{`echo "# X`, SyntaxShell, false, true},
		{`echo "a \" b X`, SyntaxShell, false, true},
		{"a = 1 // X", SyntaxHCL, true, false},
		{"a = 1 // X", SyntaxShell, false, false},
		{"{# X", SyntaxYAML, true, false},
		{"a: {# X", SyntaxOther, true, false},
		{"echo ${#X", SyntaxYAML, false, false},
		{"{# X", SyntaxShell, false, false},
	}
	for _, tt := range tests {
		data := []byte("first line\n" + tt.line)
		comment, quoted := LineContext(data, len(data)-1, tt.syntax)
		if comment != tt.comment || quoted != tt.quoted {
			t.Errorf("%q: comment %v quoted %v, want %v %v", tt.line, comment, quoted, tt.comment, tt.quoted)
		}
	}
}

package main

import (
	"fmt"
	"strings"
	"testing"
)

func TestParseOutputs(t *testing.T) {
	tests := []struct {
		spec, output string
		want         string // "format>path" joined by spaces; "" path is stdout
		err          string
	}{
		{spec: "text", want: "text>"},
		{spec: "sarif", output: "kvlint.sarif", want: "sarif>kvlint.sarif"},
		{spec: "sarif=kvlint.sarif,text", want: "sarif>kvlint.sarif text>"},
		{spec: " sarif=a.sarif , github ", want: "sarif>a.sarif github>"},
		{spec: "sarif=-,json=out.json", want: "sarif> json>out.json"},
		{spec: "json=out.json,text", output: "out.txt", want: "json>out.json text>out.txt"},
		{spec: "text", output: "-", want: "text>"},
		{spec: "json=a,sarif=b,github=c,text", want: "json>a sarif>b github>c text>"},
		{spec: "text,json", err: "text and json would both write to standard output"},
		{spec: "text,text=-", err: "would both write to standard output"},
		{spec: "yaml", err: `unknown format "yaml"`},
		{spec: "", err: "an empty entry"},
		{spec: "text,", err: "an empty entry"},
		{spec: "sarif=", err: "no file name after ="},
		{spec: "sarif=x,json=x", err: "sarif and json would both write x"},
		{spec: "sarif=x", output: "y", err: "every format already has its own file"},
		{spec: "SARIF", err: `unknown format "SARIF"`},
	}
	for _, tt := range tests {
		t.Run(tt.spec+"|"+tt.output, func(t *testing.T) {
			outs, err := parseOutputs(tt.spec, tt.output)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				if _, ok := err.(usageError); !ok {
					t.Errorf("error %T is not a usage error (exit 2)", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, o := range outs {
				got = append(got, fmt.Sprintf("%s>%s", o.format, o.path))
			}
			if strings.Join(got, " ") != tt.want {
				t.Errorf("got %s, want %s", strings.Join(got, " "), tt.want)
			}
		})
	}
}

// FuzzParseOutputs: any --format and --output are either accepted with at
// most one standard-output format and distinct files, or refused as a usage
// error; never a panic.
func FuzzParseOutputs(f *testing.F) {
	for _, seed := range [][2]string{{"text", ""}, {"sarif=a,text", "b"}, {"json=,", "-"}, {",,=", ""}} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, spec, output string) {
		outs, err := parseOutputs(spec, output)
		if err != nil {
			if _, ok := err.(usageError); !ok {
				t.Fatalf("error %T %v is not a usage error", err, err)
			}
			return
		}
		stdout, files := 0, map[string]bool{}
		for _, o := range outs {
			if o.path == "" {
				stdout++
			} else if files[o.path] {
				t.Fatalf("%q twice in %+v", o.path, outs)
			} else {
				files[o.path] = true
			}
		}
		if stdout > 1 || len(outs) == 0 {
			t.Fatalf("outputs %+v", outs)
		}
	})
}

package dockerfile

import (
	"fmt"
	"strings"
	"testing"
)

// largeDockerfile is a Dockerfile of n lines of one shape: n separate RUN,
// ENV or ARG instructions (each ENV and ARG referring to the one before),
// one RUN continued over n lines with the escape character, or n stages
// each built FROM the one before.
func largeDockerfile(n int, shape string) []byte {
	var b strings.Builder
	b.WriteString("FROM lmsysorg/sglang:latest AS s0\n")
	for i := 0; i < n; i++ {
		switch shape {
		case "run":
			fmt.Fprintf(&b, "RUN echo %d\n", i)
		case "continued":
			if i == 0 {
				b.WriteString("RUN echo 0 \\\n")
			} else {
				fmt.Fprintf(&b, "  && echo %d \\\n", i)
			}
		case "stages":
			fmt.Fprintf(&b, "FROM s%d AS s%d\n", i, i+1)
		case "env", "arg":
			fmt.Fprintf(&b, "%s V%d=${V%d:-x}%d\n", strings.ToUpper(shape), i, i-1, i)
		}
	}
	if shape == "continued" {
		b.WriteString("  && true\n")
	}
	b.WriteString("CMD [\"python3\", \"-m\", \"sglang.launch_server\", \"--port\", \"30000\"]\n")
	return []byte(b.String())
}

// BenchmarkLargeDockerfile checks that reading a Dockerfile grows linearly
// with its length: the 20k cases should take about ten times the 2k ones.
func BenchmarkLargeDockerfile(b *testing.B) {
	for _, n := range []int{2000, 20000} {
		for _, shape := range []string{"run", "continued", "env", "arg", "stages"} {
			data := largeDockerfile(n, shape)
			b.Run(fmt.Sprintf("lines=%d/%s", n, shape), func(b *testing.B) {
				b.SetBytes(int64(len(data)))
				for b.Loop() {
					p, final := analyse("Dockerfile", data)
					if len(p.errs) > 0 || final == nil {
						b.Fatalf("errors: %v", p.errs)
					}
				}
			})
		}
	}
}

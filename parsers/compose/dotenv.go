package compose

import (
	"bytes"
	"strings"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/engine"
	"github.com/kvlint/kvlint/parsers/yamlsrc"
)

// dotEnv reads the .env file compose loads from the project directory (the
// compose file's directory) for interpolation. Its absence is normal: then
// nothing is known. read resolves ".env" beside the compose file.
func dotEnv(read engine.ReadFile) vars {
	env := vars{}
	if read == nil {
		return env
	}
	name, data, err := read(".env")
	if err != nil || data == nil {
		return env
	}
	parseDotEnv(yamlsrc.NewSource(name, data), env)
	return env
}

// parseDotEnv reads KEY=VALUE lines the way compose's dotenv parser does for
// the common forms (compose-spec/docs env-file rules): blank lines and
// # comments are skipped, "export " may prefix a line, 'single-quoted' values
// are literal, "double-quoted" values may span lines and take \n \t \\ \"
// escapes, unquoted values end at " #" and are trimmed. Unquoted and
// double-quoted values are interpolated from the variables before them.
func parseDotEnv(src *yamlsrc.Source, env vars) {
	d := src.Data
	i := 0
	for i < len(d) {
		// One line, or a quoted value running over several.
		eol := indexByteFrom(d, i, '\n')
		line := string(d[i:eol])
		trimmed := strings.TrimLeft(line, " \t")
		start := i + len(line) - len(trimmed)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			i = eol + 1
			continue
		}
		if strings.HasPrefix(trimmed, "export ") {
			rest := strings.TrimLeft(trimmed[len("export "):], " \t")
			start += len(trimmed) - len(rest)
			trimmed = rest
		}
		eq := strings.IndexByte(trimmed, '=')
		if eq <= 0 {
			i = eol + 1
			continue
		}
		key := strings.TrimSpace(trimmed[:eq])
		vs := start + eq + 1
		for vs < len(d) && (d[vs] == ' ' || d[vs] == '\t') {
			vs++
		}
		next := eol + 1
		var t yamlsrc.Text
		literal := false
		switch {
		case vs < len(d) && (d[vs] == '\'' || d[vs] == '"'):
			q := d[vs]
			var b yamlsrc.Builder
			k := vs + 1
			for k < len(d) && d[k] != q {
				if q == '"' && d[k] == '\\' && k+1 < len(d) {
					esc := map[byte]string{'n': "\n", 't': "\t", 'r': "\r", '\\': "\\", '"': "\"", '$': "$$"}[d[k+1]]
					if esc == "" {
						esc = "\\" + string(d[k+1])
					}
					b.Insert(esc, k, k+2)
					k += 2
					continue
				}
				b.Insert(string(d[k]), k, k+1)
				k++
			}
			t = b.Text()
			literal = q == '\''
			next = indexByteFrom(d, k, '\n') + 1
		default:
			end := eol
			if c := bytes.Index(d[vs:eol], []byte(" #")); c >= 0 {
				end = vs + c
			}
			val := strings.TrimRight(strings.TrimRight(string(d[vs:end]), "\r"), " \t")
			var b yamlsrc.Builder
			for k := range len(val) {
				b.Insert(val[k:k+1], vs+k, vs+k+1)
			}
			t = b.Text()
		}
		v := deploy.Value{Raw: t.S, Known: true}
		if len(t.S) > 0 {
			a, e := t.Range(0, len(t.S))
			v.Span = src.Span(a, e)
		} else {
			v.Span = src.Span(vs, vs)
		}
		if !literal {
			r := interpolate(t, env)
			v.Raw, v.Known = r.text.S, r.known
			v.Origin = r.origin
		}
		if key != "" {
			env[key] = v
		}
		if next <= i {
			next = eol + 1
		}
		i = next
	}
}

func indexByteFrom(d []byte, i int, c byte) int {
	if i >= len(d) {
		return len(d)
	}
	if k := bytes.IndexByte(d[i:], c); k >= 0 {
		return i + k
	}
	return len(d)
}

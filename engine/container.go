package engine

import (
	"encoding/csv"
	"path"
	"strconv"
	"strings"

	"github.com/kvlint/kvlint/deploy"
)

// ContainerRun is a container started from a command line: docker run,
// docker container run, podman [container] run, nerdctl [container] run,
// docker compose run and docker-compose run, after the wrappers Detect
// skips (sudo, exec, env, nohup, ...).
type ContainerRun struct {
	// CLI is the word that names the tool: docker, podman, nerdctl or
	// docker-compose.
	CLI deploy.Value
	// Compose is set for compose run: Image is then the name of a service,
	// whose image the compose file gives, not an image reference.
	Compose bool
	// Image is the first word after the options: the image reference, or
	// the service for compose run.
	Image deploy.Value
	// Entrypoint is the --entrypoint value, nil when it is not given.
	Entrypoint *deploy.Value
	// Cmd are the words after the image: the container's command, or the
	// arguments of the image's entrypoint. CmdAt is the index, in the words
	// DetectContainerRun read, of the first of them.
	Cmd   []deploy.Value
	CmdAt int
	// Env are the -e/--env options in order.
	Env []ContainerEnv
	// GPUs are the --gpus values in order.
	GPUs []deploy.Value
	// Name is the --name value, unset when not given.
	Name deploy.Value
}

// ContainerEnv is one -e/--env option of a container run.
type ContainerEnv struct {
	// Name is the variable; "" when the option is a placeholder whose name
	// is not known ("-e $EXTRA"), which may set any variable.
	Name string
	// Value is the text after '=' with its own span. With -e NAME alone
	// (Inherit), the CLI copies NAME from its own environment, and the
	// variable stays unset in the container when the CLI's environment
	// has none (docker/cli@28f756087eea opts/env.go ValidateEnv).
	Value   deploy.Value
	Inherit bool
	// Word is the option's whole value as written.
	Word deploy.Value
}

// DetectContainerRun recognises a container run in the words of one simple
// command. The options are read as pflag reads them (see the tables in
// container_flags.go): "--opt=v" and "--opt v", combined short options
// ("-it", "-dit", "-p8000:8000", "-e=A=b"), "--" ending the options, and the
// first word that is not an option taken as the image. An option the
// CLI's table does not know stops the reading (the CLI exits on it, or
// kvlint cannot tell whether it takes a value), as does --help.
func DetectContainerRun(words []deploy.Value) (ContainerRun, bool) {
	i, ok := skipWrappers(words)
	if !ok {
		return ContainerRun{}, false
	}
	cli := words[i]
	sub := func(j int) string {
		s, _ := wordAt(words, j)
		return s
	}
	switch path.Base(cli.Raw) {
	case "docker":
		j, ok := skipOptions(words, i+1, dockerGlobal)
		if !ok {
			return ContainerRun{}, false
		}
		switch sub(j) {
		case "run":
			return parseRun(words, cli, j+1, dockerRun, false)
		case "container":
			if sub(j+1) == "run" {
				return parseRun(words, cli, j+2, dockerRun, false)
			}
		case "compose":
			k, ok := skipOptions(words, j+1, composeGlobal)
			if ok && sub(k) == "run" {
				return parseRun(words, cli, k+1, composeRun, true)
			}
		}
	case "docker-compose":
		k, ok := skipOptions(words, i+1, composeGlobal)
		if ok && sub(k) == "run" {
			return parseRun(words, cli, k+1, composeRun, true)
		}
	case "podman", "nerdctl":
		// Their global options are not in a table here: a run command is
		// recognised when it directly follows the program.
		table := nerdctlRun
		if path.Base(cli.Raw) == "podman" {
			table = podmanRun
		}
		switch sub(i + 1) {
		case "run":
			return parseRun(words, cli, i+2, table, false)
		case "container":
			if sub(i+2) == "run" {
				return parseRun(words, cli, i+3, table, false)
			}
		}
	}
	return ContainerRun{}, false
}

// skipWrappers returns the index of the program word after assignments and
// the wrappers Detect skips.
func skipWrappers(words []deploy.Value) (int, bool) {
	i := 0
	for depth := 0; depth <= maxWrapperDepth; depth++ {
		for i < len(words) && isAssignment(words[i]) {
			i++
		}
		if i >= len(words) || !words[i].Known {
			return 0, false
		}
		prog := path.Base(words[i].Raw)
		skip, ok := wrappers[prog]
		if !ok || prog == "uv" {
			return i, true
		}
		j, ok := skip(words, i+1)
		if !ok {
			return 0, false
		}
		i = j
	}
	return 0, false
}

// option is one option read from the command line.
type option struct {
	name     string // the long name, or the letter of a short option
	value    deploy.Value
	hasValue bool
}

type optStatus int

const (
	optRead optStatus = iota // an option was read
	optStop                  // words[i] is not an option
	optEnd                   // "--": the options end after it
	optBad                   // an option the table does not know, or a missing value
)

// readOptions reads the option word at words[i] (several for a cluster of
// short options) as pflag does (spf13/pflag flag.go parseLongArg and
// parseSingleShortArg) and returns the index after it.
func readOptions(words []deploy.Value, i int, o runOptions) ([]option, int, optStatus) {
	w := words[i]
	raw := w.Raw
	if !strings.HasPrefix(raw, "-") || raw == "-" {
		return nil, i, optStop
	}
	if raw == "--" {
		return nil, i + 1, optEnd
	}
	if strings.HasPrefix(raw, "--") {
		name, _, hasEq := strings.Cut(raw[2:], "=")
		if hasPlaceholder(name) {
			return nil, i, optBad
		}
		takes, ok := o.long[name]
		if !ok {
			return nil, i, optBad
		}
		switch {
		case hasEq:
			return []option{{name: name, value: part(w, len(name)+3, len(raw)), hasValue: true}}, i + 1, optRead
		case !takes:
			return []option{{name: name}}, i + 1, optRead
		case i+1 < len(words):
			return []option{{name: name, value: words[i+1], hasValue: true}}, i + 2, optRead
		}
		return nil, i, optBad
	}
	if !w.Known && hasPlaceholder(raw[:2]) {
		return nil, i, optBad
	}
	var out []option
	for k := 1; k < len(raw); k++ {
		c := raw[k]
		takes, ok := o.short[c]
		if !ok {
			return nil, i, optBad
		}
		name := string(c)
		switch {
		case k+2 < len(raw) && raw[k+1] == '=':
			return append(out, option{name: name, value: part(w, k+2, len(raw)), hasValue: true}), i + 1, optRead
		case !takes:
			out = append(out, option{name: name})
		case k+1 < len(raw):
			return append(out, option{name: name, value: part(w, k+1, len(raw)), hasValue: true}), i + 1, optRead
		case i+1 < len(words):
			return append(out, option{name: name, value: words[i+1], hasValue: true}), i + 2, optRead
		default:
			return nil, i, optBad
		}
	}
	if !w.Known {
		// A boolean cluster with a placeholder in it ("-i$T").
		return nil, i, optBad
	}
	return out, i + 1, optRead
}

// skipOptions reads a CLI's global options and returns the index of the
// command word.
func skipOptions(words []deploy.Value, i int, o runOptions) (int, bool) {
	for i < len(words) {
		if !words[i].Known {
			return 0, false
		}
		_, next, st := readOptions(words, i, o)
		switch st {
		case optStop:
			return i, true
		case optEnd:
			return next, true
		case optBad:
			return 0, false
		}
		i = next
	}
	return i, true
}

// parseRun reads a run command's options from words[i] on, then the image
// and the container's command.
func parseRun(words []deploy.Value, cli deploy.Value, i int, o runOptions, compose bool) (ContainerRun, bool) {
	r := ContainerRun{CLI: cli, Compose: compose}
	shortNames := map[string]string{"e": "env"}
options:
	for i < len(words) {
		w := words[i]
		if !w.Known && !strings.HasPrefix(w.Raw, "-") {
			break // a placeholder image ("$IMAGE")
		}
		opts, next, st := readOptions(words, i, o)
		switch st {
		case optStop:
			break options
		case optEnd:
			i = next
			break options
		case optBad:
			return ContainerRun{}, false
		}
		for _, op := range opts {
			name := op.name
			if long, ok := shortNames[name]; ok {
				name = long
			}
			switch name {
			case o.help:
				return ContainerRun{}, false
			case "env":
				r.Env = append(r.Env, containerEnv(op.value))
			case "entrypoint":
				v := op.value
				r.Entrypoint = &v
			case "gpus":
				r.GPUs = append(r.GPUs, op.value)
			case "name":
				r.Name = op.value
			}
		}
		i = next
	}
	if i >= len(words) {
		return ContainerRun{}, false // docker run requires an image
	}
	r.Image = words[i]
	r.CmdAt = i + 1
	r.Cmd = words[i+1:]
	return r, true
}

// containerEnv reads one -e value: NAME=value, or NAME alone.
func containerEnv(w deploy.Value) ContainerEnv {
	e := ContainerEnv{Word: w}
	name, _, hasEq := strings.Cut(w.Raw, "=")
	if hasPlaceholder(name) || name == "" {
		return e
	}
	e.Name = name
	if !hasEq {
		e.Inherit = w.Known
		if !w.Known {
			e.Name = ""
		}
		return e
	}
	e.Value = part(w, len(name)+1, len(w.Raw))
	if !w.Known {
		// The placeholder is in the value: only the value is unknown.
		e.Value.Known = false
	}
	return e
}

// ContainerCommand is what a container run executes, as far as the command
// line and the image table tell.
type ContainerCommand struct {
	// Argv is the container's argv (ContainerArgv): the deployment's
	// entrypoint and command, and the image's ENTRYPOINT/CMD where the
	// table knows the image. For an image the table does not know, Argv is
	// the command after the image alone; it names the program only when
	// the image has no ENTRYPOINT of its own, so a caller should take it as
	// a launch only when Detect recognises it.
	Argv []deploy.Value
	// Image is the table's row for the image when ImageKnown.
	Image      Image
	ImageKnown bool
	// Entrypoint is what the image supplied to Argv (ImageLaunch); nil
	// when the run's own --entrypoint and command say everything.
	Entrypoint *deploy.ImageEntrypoint
	// EngineArgsOnly is set for a docker/podman/nerdctl run of an image the
	// table does not know, without --entrypoint, whose words after the
	// image look like an engine server's flags (EngineArgs): the image's
	// own entrypoint likely starts an engine, which kvlint cannot see, so
	// no server is made of it.
	EngineArgsOnly bool
}

// Command composes what the container runs. A compose run's service
// image is not known from the command line: its argv is the --entrypoint
// and command given, if any.
func (r ContainerRun) Command(t *ImageTable) ContainerCommand {
	var ep, cmd []deploy.Value
	if r.Entrypoint != nil {
		ep = r.entrypointWords()
	}
	if len(r.Cmd) > 0 {
		cmd = r.Cmd
	}
	var c ContainerCommand
	if !r.Compose && r.Image.Known {
		if ref, ok := ParseImageRef(r.Image.Raw); ok {
			c.Image, c.ImageKnown = t.Lookup(ref)
		}
	}
	switch {
	case c.ImageKnown:
		c.Argv, c.Entrypoint, _ = ImageLaunch(t, r.Image, ep, cmd)
	case ep != nil:
		// A given entrypoint replaces the image's and drops its CMD, so
		// an image kvlint does not know changes nothing.
		c.Argv = append(append([]deploy.Value{}, ep...), cmd...)
	default:
		c.Argv = cmd
		c.EngineArgsOnly = !r.Compose && EngineArgs(cmd)
	}
	return c
}

// entrypointWords is the --entrypoint value as the program words it sets.
// docker run takes it as one program (docker/cli@28f756087eea
// cli/command/container/opts.go parse: strslice.StrSlice{copts.entrypoint}),
// and an empty value clears the image's ENTRYPOINT. compose run splits it
// into words (cmd/compose/run.go: shellwords.Parse); kvlint splits a value
// without quotes, escapes or placeholders at spaces, and keeps any other
// as one word.
func (r ContainerRun) entrypointWords() []deploy.Value {
	v := *r.Entrypoint
	if v.Known && v.Raw == "" {
		return []deploy.Value{}
	}
	if !r.Compose || !v.Known || strings.ContainsAny(v.Raw, `"'\$`+"`") {
		return []deploy.Value{v}
	}
	var out []deploy.Value
	start := -1
	for k := 0; k <= len(v.Raw); k++ {
		space := k == len(v.Raw) || strings.IndexByte(" \t\n", v.Raw[k]) >= 0
		switch {
		case space && start >= 0:
			out = append(out, part(v, start, k))
			start = -1
		case !space && start < 0:
			start = k
		}
	}
	return out
}

// GPUCount is the number of GPUs the --gpus options request, read as
// docker/cli@28f756087eea opts/gpus.go GpuOpts.Set reads each value: a CSV
// record of fields, a bare field or count= being a count ("all" or an
// integer), device= a comma-separated list of IDs (so a list of several IDs
// must be quoted inside the value: --gpus '"device=0,1"'). Several --gpus
// add their requests. "all" is the host's GPUs: unknown, Raw "all". A
// value Set would reject, a placeholder, or a request with both a count
// and IDs (which the daemon's NVIDIA device driver rejects) is unknown.
// The result is unset when no --gpus is given.
func (r ContainerRun) GPUCount() deploy.Value {
	if len(r.GPUs) == 0 {
		return deploy.Value{}
	}
	first := r.GPUs[0]
	total := 0
	for _, g := range r.GPUs {
		if !g.Known {
			return deploy.Value{Raw: g.Raw, Span: g.Span, Origin: g.Origin}
		}
		n, ok := gpuRequest(g.Raw)
		switch {
		case !ok:
			return deploy.Value{Raw: g.Raw, Span: g.Span, Origin: g.Origin}
		case n < 0:
			return deploy.Value{Raw: "all", Span: g.Span, Origin: g.Origin}
		}
		total += n
	}
	return deploy.Value{Raw: strconv.Itoa(total), Known: true, Span: first.Span, Origin: first.Origin}
}

// gpuRequest returns the GPUs one --gpus value asks for; -1 for all.
func gpuRequest(value string) (int, bool) {
	rec, err := csv.NewReader(strings.NewReader(value)).Read()
	if err != nil {
		return 0, false
	}
	count, countSet := 0, false
	ids := -1
	seen := map[string]bool{}
	for _, field := range rec {
		key, val, withValue := strings.Cut(field, "=")
		if seen[key] {
			return 0, false // "gpu request key '%s' can be specified only once"
		}
		seen[key] = true
		switch {
		case !withValue, key == "count":
			if countSet {
				return 0, false
			}
			if !withValue {
				val = key
			}
			n, ok := gpuCountField(val)
			if !ok {
				return 0, false
			}
			count, countSet = n, true
		case key == "device":
			ids = len(strings.Split(val, ","))
		case key == "driver", key == "capabilities", key == "options":
		default:
			return 0, false // "unexpected key"
		}
	}
	switch {
	case ids >= 0 && countSet:
		return 0, false
	case ids >= 0:
		return ids, true
	case countSet:
		return count, true
	}
	return 1, true // Set: a request with neither count nor IDs asks for one GPU
}

// gpuCountField is opts/gpus.go parseCount.
func gpuCountField(s string) (int, bool) {
	if s == "all" {
		return -1, true
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, false
	}
	return n, true
}

// EngineArgs reports whether words look like the arguments of an engine
// server whose program an image would supply: the first word is a long
// option that the SGLang server or vLLM knows (--model, --model-path,
// --tensor-parallel-size). A container run of an image kvlint does not
// know, with such words after it, likely runs an engine kvlint cannot see.
func EngineArgs(words []deploy.Value) bool {
	if len(words) == 0 || !words[0].Known || !strings.HasPrefix(words[0].Raw, "--") {
		return false
	}
	name, _, _ := strings.Cut(words[0].Raw, "=")
	for _, p := range []Program{SGLangServer, VLLMServer} {
		if t := Lookup(p); t != nil {
			if _, ok := t.Flag(name); ok {
				return true
			}
		}
	}
	return false
}

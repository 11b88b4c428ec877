package engine

import (
	"bytes"
	"strings"

	"github.com/kvlint/kvlint/deploy"
)

// MentionKind is how a text names an engine.
type MentionKind string

const (
	// MentionModule is a Python module that starts an engine server
	// (python -m sglang.launch_server, vllm.entrypoints.openai.api_server,
	// dynamo.vllm) or SGLang's launch script run as a file.
	MentionModule MentionKind = "module"
	// MentionCommand is an engine's serve subcommand: sglang serve, vllm
	// serve, as words of one line or as items of an exec-form list.
	MentionCommand MentionKind = "command"
	// MentionImage is a container image that runs an engine: one the image
	// table knows, or one in an image position ("image:", FROM) whose name
	// contains an engine's. The scan looks only where an engine's name
	// (sglang, vllm, dynamo) is written, which keeps it to a few
	// bytes.Index calls per file: a .kvlint.yaml images: row whose
	// repository names no engine is found by the parsers that run it, not
	// here.
	MentionImage MentionKind = "image"
	// MentionNoKVCache is a launch of a server that keeps no paged KV
	// cache, found by a parser rather than by the text scan: KServe's
	// huggingfaceserver with --backend huggingface (HFTransformers).
	MentionNoKVCache MentionKind = "no-kv-cache"
	// MentionController is a resource whose controller launches an
	// engine with a command it builds at run time (a KAITO Workspace),
	// found by a parser: the launch is in no file kvlint reads.
	MentionController MentionKind = "controller"
)

// Mention is one place a text names an engine.
type Mention struct {
	Kind MentionKind
	// Text is what was seen, as a user would search for it:
	// "sglang.launch_server", "vllm serve", "vllm/vllm-openai:v0.8.5".
	Text string
	// Start and End are the byte offsets of the naming word in the text.
	Start, End int
	// Engine is the engine named; "" for an image the table maps to none.
	Engine deploy.Engine
	// Image is the image table's row (ImageKnown) for an image mention.
	Image      Image
	ImageKnown bool
}

// mentionNeedles are what every mention contains, lower case as module
// names, console scripts and image repositories are written (Docker
// requires lower-case repositories: distribution/reference's grammar).
// A file without any of them names no engine, and scanning it costs one
// bytes.Index per needle.
var mentionNeedles = [][]byte{[]byte("sglang"), []byte("vllm"), []byte("dynamo")}

// mentionModules are the modules that start an engine server. The first
// two groups are the ones Detect launches (detect.go modules,
// vllm.entrypoints.cli.main serve); dynamo.sglang and dynamo.vllm are
// Dynamo's backend workers, run as python -m dynamo.<engine>
// (ai-dynamo/dynamo components/src/dynamo/{sglang,vllm}/__main__.py).
var mentionModules = map[string]deploy.Engine{
	"sglang.launch_server":               deploy.EngineSGLang,
	"vllm.entrypoints.openai.api_server": deploy.EngineVLLM,
	"vllm.entrypoints.cli.main":          deploy.EngineVLLM,
	"dynamo.sglang":                      deploy.EngineSGLang,
	"dynamo.vllm":                        deploy.EngineVLLM,
}

// NamesEngine reports whether text contains, in any case, a word every
// engine mention contains (mentionNeedles): the cheap test for "this text
// could launch an engine", before any parse.
func NamesEngine(text []byte) bool {
	l := bytes.ToLower(text)
	for _, n := range mentionNeedles {
		if bytes.Contains(l, n) {
			return true
		}
	}
	return false
}

// maxMentionScan bounds the occurrences of the needles one scan looks at,
// so a file that repeats "vllm" a million times costs no more than this.
const maxMentionScan = 4096

// ScanMentions calls visit with each place in data that names an engine
// launch, in order, until visit returns false. It knows how engines are
// named, not file formats: skipping comments is the caller's (visit sees
// the offsets). images resolves image references (nil: the built-in rows).
func ScanMentions(data []byte, images *ImageTable, visit func(Mention) bool) {
	next := make([]int, len(mentionNeedles)) // next occurrence of each needle at or after pos; -1: none
	pos := 0
	for i, n := range mentionNeedles {
		next[i] = bytes.Index(data, n)
	}
	for range maxMentionScan {
		at := -1
		for _, p := range next {
			if p >= 0 && (at < 0 || p < at) {
				at = p
			}
		}
		if at < 0 {
			return
		}
		start, end := tokenAround(data, at)
		if m, ok := classifyMention(data, start, end, images); ok && !visit(m) {
			return
		}
		pos = max(end, at+1)
		for i, n := range mentionNeedles {
			if next[i] >= 0 && next[i] < pos {
				if j := bytes.Index(data[pos:], n); j >= 0 {
					next[i] = pos + j
				} else {
					next[i] = -1
				}
			}
		}
	}
}

// tokenByte reports whether c can be part of a module name, a command word
// or an image reference.
func tokenByte(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '"', '\'', '`', '(', ')', '[', ']', '{', '}', '<', '>', ',', ';', '=', '|', '&', '$', '\\':
		return false
	}
	return true
}

func tokenAround(data []byte, at int) (int, int) {
	start, end := at, at
	for start > 0 && tokenByte(data[start-1]) {
		start--
	}
	for end < len(data) && tokenByte(data[end]) {
		end++
	}
	return start, end
}

func classifyMention(data []byte, start, end int, images *ImageTable) (Mention, bool) {
	tok := strings.TrimRight(string(data[start:end]), ".:")
	m := Mention{Text: tok, Start: start, End: start + len(tok)}
	if tok == "" {
		return m, false
	}
	if e, ok := mentionModules[tok]; ok {
		m.Kind, m.Engine = MentionModule, e
		return m, true
	}
	if strings.HasSuffix(tok, "sglang/launch_server.py") {
		m.Kind, m.Engine = MentionModule, deploy.EngineSGLang
		return m, true
	}
	if tok == "sglang" || tok == "vllm" {
		if nextWord(data, end) == "serve" {
			m.Kind, m.Engine, m.Text = MentionCommand, deploy.Engine(tok), tok+" serve"
			return m, true
		}
		return m, false
	}
	return imageMention(data, start, m, images)
}

// nextWord is the word after offset i, past the separators of a command
// line or an exec-form list (spaces, quotes, commas, a YAML "- "), within
// a few lines.
func nextWord(data []byte, i int) string {
	limit := min(len(data), i+64)
	for i < limit {
		switch data[i] {
		case ' ', '\t', '\n', '\r', '"', '\'', ',', '-':
			i++
			continue
		}
		break
	}
	j := i
	for j < len(data) && tokenByte(data[j]) {
		j++
	}
	return string(data[i:j])
}

// imageMention reads tok as an image reference: one the table knows, or
// one written where an image goes whose repository names an engine.
func imageMention(data []byte, start int, m Mention, images *ImageTable) (Mention, bool) {
	tok := m.Text
	if !strings.ContainsAny(tok, "/:") || strings.Contains(tok, "://") || strings.ContainsAny(tok[:1], "/.~") {
		return m, false
	}
	ref, ok := ParseImageRef(tok)
	if !ok {
		return m, false
	}
	m.Kind = MentionImage
	if im, ok := images.Lookup(ref); ok {
		m.Image, m.ImageKnown, m.Engine = im, true, im.Engine
		return m, true
	}
	if !imagePosition(data, start) {
		return m, false
	}
	repo := ref.Repository[strings.LastIndexByte(ref.Repository, '/')+1:]
	switch {
	case strings.Contains(repo, "sglang"):
		m.Engine = deploy.EngineSGLang
	case strings.Contains(repo, "vllm"):
		m.Engine = deploy.EngineVLLM
	default:
		return m, false // a path segment names an engine, the image does not
	}
	return m, true
}

// imagePosition reports whether the word at start is where a deployment
// file writes an image: after an "image" key (YAML image:, HCL image =,
// JSON "image":) or after FROM in a Dockerfile.
func imagePosition(data []byte, start int) bool {
	ls := bytes.LastIndexByte(data[:start], '\n') + 1
	before := bytes.TrimRight(data[ls:start], " \t\"'")
	before = bytes.TrimRight(bytes.TrimRight(before, ":="), " \t\"'")
	lower := strings.ToLower(string(before))
	if strings.HasSuffix(lower, "image") {
		return true
	}
	f := strings.Fields(lower)
	return len(f) > 0 && f[0] == "from"
}

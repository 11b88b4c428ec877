package engine

import (
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/kvlint/kvlint/deploy"
)

// Image is what a container image runs when a deployment gives no command of
// its own: its ENTRYPOINT and CMD, and the engine release its tag carries.
// Rows come from data/images.tsv (each citing the Dockerfile it was read
// from) and from .kvlint.yaml images: entries, which come first.
type Image struct {
	// Repository is the image name without registry host for Docker Hub
	// ("vllm/vllm-openai"), with it otherwise ("nvcr.io/nvidia/ai-dynamo/
	// vllm-runtime"). A trailing "*" matches any suffix.
	Repository string
	// Tags is a glob (path.Match) over the tag: "v0.8.*", "latest", "*".
	Tags string
	// Engine is the engine the entrypoint starts; "" when the image runs no
	// engine by itself (a base image whose CMD is a shell).
	Engine deploy.Engine
	// Entrypoint and Cmd are the image's ENTRYPOINT and CMD in exec form.
	Entrypoint []string
	Cmd        []string
	// Release is the engine release the tag carries ("0.8.5"); "" unknown.
	Release string
	// Floating is set for tags that move (latest, nightly, dev, main): the
	// release is then the newest known one, and findings say so.
	Floating bool
	// Source cites where the row was read: repo@commit:path of the
	// Dockerfile, or the .kvlint.yaml entry's position.
	Source string
}

// ImageRef is an image reference split as the Docker CLI splits it
// (distribution/reference: [host[:port]/]path[:tag][@digest]).
type ImageRef struct {
	Repository string // normalized as in Image.Repository
	Tag        string // "latest" when none is written and there is no digest
	Digest     string
}

// ParseImageRef splits an image reference. Docker Hub's host
// (docker.io, index.docker.io, registry-1.docker.io) and its "library/"
// prefix are dropped so one table row serves every spelling.
func ParseImageRef(s string) (ImageRef, bool) {
	s = strings.TrimSpace(s)
	if s == "" || strings.ContainsAny(s, " \t\n") {
		return ImageRef{}, false
	}
	var r ImageRef
	if at := strings.IndexByte(s, '@'); at >= 0 {
		r.Digest, s = s[at+1:], s[:at]
	}
	// A tag follows the last ':' after the last '/' (a ':' before it is a
	// registry port).
	slash := strings.LastIndexByte(s, '/')
	if colon := strings.LastIndexByte(s, ':'); colon > slash {
		r.Tag, s = s[colon+1:], s[:colon]
	}
	if s == "" {
		return ImageRef{}, false
	}
	if host, rest, ok := strings.Cut(s, "/"); ok && (strings.ContainsAny(host, ".:") || host == "localhost") {
		switch host {
		case "docker.io", "index.docker.io", "registry-1.docker.io":
			s = rest
		}
	}
	s = strings.TrimPrefix(s, "library/")
	r.Repository = strings.ToLower(s)
	if r.Tag == "" && r.Digest == "" {
		r.Tag = "latest"
	}
	return r, true
}

// ImageTable finds the row for an image reference: the user's rows first,
// then the cited table, the most specific match of each winning.
type ImageTable struct {
	user []Image
}

// NewImageTable returns a table whose user rows (from .kvlint.yaml) take
// precedence over the built-in ones.
func NewImageTable(user []Image) *ImageTable { return &ImageTable{user: user} }

// UserRows are the table's rows from .kvlint.yaml, for a worker process
// to build the same table (parsers/worker.go).
func (t *ImageTable) UserRows() []Image {
	if t == nil {
		return nil
	}
	return t.user
}

// Lookup returns the row for ref. A nil table has only the built-in rows.
func (t *ImageTable) Lookup(ref ImageRef) (Image, bool) {
	if t != nil {
		if im, ok := bestImage(t.user, ref); ok {
			return im, true
		}
	}
	rows, err := builtinImages()
	if err != nil {
		return Image{}, false
	}
	im, ok := bestImage(rows, ref)
	if ok && im.Release == "" && !im.Floating {
		// A built-in row written as a tag glob ("v0.1[2-9].*") carries no
		// release of its own; the tag names it where the scheme is known.
		im.Release, _ = TagRelease(ref.Repository, ref.Tag)
	}
	return im, ok
}

// tagSchemes are the image repositories whose release tags were read at
// their publishing scripts, each with the pattern of those tags; the first
// group is the engine release.
//   - vllm/vllm-openai: vllm-project/vllm@60af7b967bf5
//     .buildkite/scripts/annotate-release.sh tags v${RELEASE_VERSION},
//     v${RELEASE_VERSION}-x86_64/-aarch64 and each of them with -cu130.
//   - vllm/vllm-openai-rocm: the same commit's
//     .buildkite/scripts/annotate-rocm-release.sh tags v${RELEASE_VERSION}
//     (and v${RELEASE_VERSION}-base, the ROCm base image, no engine).
//   - lmsysorg/sglang: sgl-project/sglang@8905cbd42f4a
//     .github/workflows/release-docker*.yml tag v{version} followed by a
//     variant (-cu129, -cu130, -runtime, -rocm700-mi30x, -cann…); releases
//     before them carried .postN (v0.4.6.post1-cu124).
var tagSchemes = map[string]*regexp.Regexp{
	"vllm/vllm-openai":      regexp.MustCompile(`^v([0-9]+\.[0-9]+\.[0-9]+(?:\.[0-9]+)?(?:\.post[0-9]+)?)(?:-(?:x86_64|aarch64))?(?:-cu[0-9]+)?$`),
	"vllm/vllm-openai-rocm": regexp.MustCompile(`^v([0-9]+\.[0-9]+\.[0-9]+(?:\.[0-9]+)?(?:\.post[0-9]+)?)$`),
	"lmsysorg/sglang":       regexp.MustCompile(`^v([0-9]+\.[0-9]+\.[0-9]+(?:\.post[0-9]+)?)(?:-[a-z0-9][a-z0-9._-]*)?$`),
}

// TagRelease returns the engine release an image tag names, for the
// repositories whose tag scheme is known (tagSchemes): vllm/vllm-openai
// v0.12.0 → 0.12.0, lmsysorg/sglang v0.4.6.post1-cu124 → 0.4.6.post1.
// Other repositories and tags outside the scheme (latest, nightly, dev,
// v0.14.0-base) give "", false.
func TagRelease(repository, tag string) (string, bool) {
	re := tagSchemes[repository]
	if re == nil {
		return "", false
	}
	m := re.FindStringSubmatch(tag)
	if m == nil {
		return "", false
	}
	return m[1], true
}

// bestImage picks the matching row with the longest repository pattern,
// then the longest tag pattern (an exact tag beats "v0.*", which beats "*").
func bestImage(rows []Image, ref ImageRef) (Image, bool) {
	best, found := Image{}, false
	for _, im := range rows {
		if !matchRepository(im.Repository, ref.Repository) {
			continue
		}
		tag := ref.Tag
		if tag == "" {
			tag = "@" + ref.Digest // only a "*" row matches a digest
		}
		if ok, _ := path.Match(im.Tags, tag); !ok && im.Tags != "*" {
			continue
		}
		if !found || specificity(im) > specificity(best) {
			best, found = im, true
		}
	}
	return best, found
}

func specificity(im Image) int {
	n := len(strings.TrimSuffix(im.Repository, "*"))*1000 + len(strings.ReplaceAll(im.Tags, "*", ""))
	if !strings.ContainsAny(im.Tags, "*?[") {
		// An exact tag beats any glob, however long: v0.20.0 (read at
		// its release commit) over v0.[2-9][0-9].*.
		n += 500
	}
	return n
}

func matchRepository(pattern, repo string) bool {
	if p, ok := strings.CutSuffix(pattern, "*"); ok {
		return strings.HasPrefix(repo, p)
	}
	return pattern == repo
}

// ContainerArgv composes the argv a container runs, as Docker and
// Kubernetes do (Dockerfile reference, "Understand how CMD and ENTRYPOINT
// interact"; Kubernetes "Define a Command and Arguments for a Container"):
// an entrypoint given by the deployment (docker run --entrypoint, compose
// entrypoint:, a Kubernetes command:) replaces the image's ENTRYPOINT and
// drops its CMD; arguments given by the deployment (after the image in
// docker run, compose command:, Kubernetes args:) replace the CMD.
//
// Words that come from the image carry the image value's span and an
// Origin step of kind image: a finding on them points at the image line.
// entrypoint and cmd are nil when the deployment does not set them (an
// empty, non-nil list is set and empty).
func ContainerArgv(image deploy.Value, im Image, entrypoint, cmd []deploy.Value) []deploy.Value {
	var out []deploy.Value
	if entrypoint != nil {
		out = append(out, entrypoint...)
	} else {
		out = append(out, imageWords(image, im.Entrypoint)...)
	}
	switch {
	case cmd != nil:
		out = append(out, cmd...)
	case entrypoint == nil:
		out = append(out, imageWords(image, im.Cmd)...)
	}
	return out
}

func imageWords(image deploy.Value, words []string) []deploy.Value {
	out := make([]deploy.Value, len(words))
	for i, w := range words {
		out[i] = deploy.Value{Raw: w, Known: true, Span: image.Span,
			Origin: slices.Clone(image.Origin).Add(deploy.At(deploy.StepImage, image.Span))}
	}
	return out
}

var builtinImages = sync.OnceValues(func() ([]Image, error) {
	data, err := dataFS.ReadFile("data/images.tsv")
	if err != nil {
		return nil, err
	}
	return parseImageTSV(string(data))
})

// parseImageTSV reads data/images.tsv: a header line, then repository, tags,
// engine, entrypoint (JSON list), cmd (JSON list), release, floating
// (true|false) and source, tab-separated; lines starting with '#' are
// comments.
func parseImageTSV(data string) ([]Image, error) {
	var rows []Image
	header := true
	for n, line := range strings.Split(data, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if header {
			header = false
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 8 {
			return nil, fmt.Errorf("images.tsv:%d: %d fields, want 8", n+1, len(f))
		}
		im := Image{Repository: f[0], Tags: f[1], Engine: deploy.Engine(f[2]), Release: f[5], Floating: f[6] == "true", Source: f[7]}
		if err := json.Unmarshal([]byte(f[3]), &im.Entrypoint); err != nil {
			return nil, fmt.Errorf("images.tsv:%d: entrypoint: %v", n+1, err)
		}
		if err := json.Unmarshal([]byte(f[4]), &im.Cmd); err != nil {
			return nil, fmt.Errorf("images.tsv:%d: cmd: %v", n+1, err)
		}
		rows = append(rows, im)
	}
	return rows, nil
}

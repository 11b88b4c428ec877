package parsers

import (
	"runtime"
	"sync"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/parsers/k8s"
)

// Parsed is what a set of files holds: the servers they launch, the
// Kubernetes Services that route to them (deploy.Group needs both), and the
// input that could not be analysed.
type Parsed struct {
	Servers  []*deploy.Server
	Services []deploy.Service
	Errors   []*deploy.Error
}

// ParseAll is Parse that also returns the Services a manifest defines.
func ParseAll(f File) Parsed { return ParseAllWith(f, Options{}) }

// parseAllWith is ParseAllWith without its guard (guard.go).
func parseAllWith(f File, opt Options) Parsed {
	if f.Kind == KindHelm {
		return parseHelm(f, opt)
	}
	if f.Kind != KindKubernetes {
		s, e := parseWith(f, opt)
		return Parsed{Servers: s, Errors: e}
	}
	data, err := readBounded(f.Path)
	if err != nil {
		return Parsed{Errors: []*deploy.Error{{Span: deploy.Span{File: f.Path}, Message: describeFSError(err)}}}
	}
	m := k8s.ParseManifest(f.Path, data, ReadBeside(f.Path))
	return Parsed{Servers: m.Servers, Services: m.Services, Errors: m.Errors}
}

// ParseFileSet parses files on every core and returns everything in file
// order, whatever order the workers finish in, so output is deterministic.
func ParseFileSet(files []File) Parsed { return ParseFileSetWith(files, Options{}) }

// ParseFileSetWith is ParseFileSet with settings from the command line.
func ParseFileSetWith(files []File, opt Options) Parsed {
	out := make([]Parsed, len(files))
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range max(1, min(runtime.GOMAXPROCS(0), len(files))) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				out[i] = ParseAllWith(files[i], opt)
			}
		}()
	}
	for i := range files {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	var all Parsed
	for _, p := range out {
		all.Servers = append(all.Servers, p.Servers...)
		all.Services = append(all.Services, p.Services...)
		all.Errors = append(all.Errors, p.Errors...)
	}
	return all
}

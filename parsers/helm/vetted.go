package helm

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/ignore"

	"github.com/kvlint/kvlint/internal/confined"
)

// maxChartFiles bounds how many files one chart directory may hold.
const maxChartFiles = 10000

// refusedError is a chart file the confinement would not read: the chart is
// not rendered (rendering it without the file would invent what the file
// says) and the error is reported at the file.
type refusedError struct {
	path string
	err  error
}

func (e *refusedError) Error() string { return confined.Describe(e.err) }

// loadVetted loads a chart directory from an in-memory copy made through
// cfs, instead of Helm's loader.LoadDir, which follows every symbolic link
// wherever it points (helm.sh/helm/v3@v3.22.0 internal/sympath/walk.go
// symwalk), reads irregular files' paths with os.ReadFile and logs link
// targets to the standard logger. The copy keeps LoadDir's rules
// (pkg/chart/loader/directory.go LoadDir): .helmignore plus the default
// rules, names relative to the chart with forward slashes, a leading UTF-8
// byte-order mark dropped, irregular files refused; then loader.LoadFiles
// builds the chart exactly as LoadDir would.
func loadVetted(cfs *confined.FS, dir string) (*chart.Chart, error) {
	top, err := cfs.Resolve(dir)
	if err != nil {
		return nil, &refusedError{path: dir, err: err}
	}
	rules := ignore.Empty()
	ifile := filepath.Join(dir, ignore.HelmIgnore)
	if _, err := os.Lstat(ifile); err == nil {
		data, err := cfs.ReadFile(ifile)
		if err != nil {
			return nil, &refusedError{path: ifile, err: err}
		}
		if rules, err = ignore.Parse(bytes.NewReader(data)); err != nil {
			return nil, err
		}
	}
	rules.AddDefaults()
	var files []*loader.BufferedFile
	total := 0
	// visited holds the real directories entered, so a link back up the
	// tree does not walk forever.
	visited := map[string]bool{top: true}
	var walk func(disp, rel string) error
	walk = func(disp, rel string) error {
		entries, err := os.ReadDir(disp)
		if err != nil {
			return fmt.Errorf("error reading %s: %w", rel, err)
		}
		sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
		for _, e := range entries {
			p := filepath.Join(disp, e.Name())
			n := path.Join(rel, e.Name())
			// A link is judged by where it resolves: inside the checked
			// paths, as what it points at; outside, refused unread.
			real, err := cfs.Resolve(p)
			if err != nil {
				if errors.Is(err, confined.ErrOutside) {
					return &refusedError{path: p, err: err}
				}
				return fmt.Errorf("error reading %s: %w", n, err)
			}
			info, err := os.Stat(real)
			if err != nil {
				return fmt.Errorf("error reading %s: %w", n, err)
			}
			if info.IsDir() {
				if rules.Ignore(n, info) || visited[real] {
					continue
				}
				visited[real] = true
				if err := walk(p, n); err != nil {
					return err
				}
				continue
			}
			if rules.Ignore(n, info) {
				continue
			}
			if len(files) >= maxChartFiles {
				return fmt.Errorf("the chart holds more than %d files; not read", maxChartFiles)
			}
			data, err := cfs.ReadFile(p)
			if err != nil {
				return &refusedError{path: p, err: err}
			}
			if total += len(data); total > maxChartSize {
				return fmt.Errorf("the chart's files add up to more than 64 MiB; not read")
			}
			files = append(files, &loader.BufferedFile{Name: n, Data: bytes.TrimPrefix(data, []byte{0xEF, 0xBB, 0xBF})})
		}
		return nil
	}
	if err := walk(dir, ""); err != nil {
		return nil, err
	}
	return loader.LoadFiles(files)
}

// loadArchive loads a packaged chart the user named, read through cfs.
func loadArchive(cfs *confined.FS, name string) (*chart.Chart, error) {
	data, err := cfs.ReadFile(name)
	if err != nil {
		return nil, &refusedError{path: name, err: err}
	}
	return loader.LoadArchive(bytes.NewReader(data))
}

// isRefused reports a refused chart file.
func isRefused(err error) (*refusedError, bool) {
	var r *refusedError
	if errors.As(err, &r) {
		return r, true
	}
	return nil, false
}

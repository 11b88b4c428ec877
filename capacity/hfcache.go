package capacity

import (
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/kvlint/kvlint/internal/confined"
)

// HFCache is a Hugging Face hub cache directory (the directory that holds
// models--ORG--NAME/), where a model id given to a server may already be
// downloaded.
type HFCache struct {
	Dir string
	// Named is set when the user named the directory on kvlint's command
	// line: it is read wherever it is. Every other cache (from
	// .kvlint.yaml, or kvlint's own HF_HUB_CACHE, HF_HOME or home
	// directory) is read only inside the checked paths.
	Named bool
	// From says where the directory came from ("--hf-cache",
	// ".kvlint.yaml hf_cache:", "$HF_HUB_CACHE", …), for the explanation.
	From string
}

// The hub cache layout (huggingface_hub file_download.py
// repo_folder_name and _get_pointer_path; constants.py HF_HUB_CACHE,
// HF_HOME): a model repository ORG/NAME is cached under
// models--ORG--NAME, its files under snapshots/<commit>/, and refs/main
// holds the commit the main branch resolved to when it was downloaded.
var (
	hfRepoID   = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,95}/[A-Za-z0-9][A-Za-z0-9._-]{0,95}$`)
	hfRevision = regexp.MustCompile(`^[A-Za-z0-9._-]{1,128}$`)
	// hfCachePath finds a cache folder in a path a server was given
	// (/root/.cache/huggingface/hub/models--ORG--NAME/snapshots/REV).
	hfCachePath = regexp.MustCompile(`(?:^|/)models--([A-Za-z0-9][A-Za-z0-9._-]*)--([A-Za-z0-9][A-Za-z0-9._-]*)(?:/|$)`)
)

// hfCacheFolder is huggingface_hub's repo_folder_name for a model id.
func hfCacheFolder(id string) string {
	return "models--" + strings.ReplaceAll(id, "/", "--")
}

// idFromCachePath returns the model id a path inside a hub cache names,
// or "" when it names none.
func idFromCachePath(p string) string {
	m := hfCachePath.FindStringSubmatch(filepath.ToSlash(p))
	if m == nil || strings.Contains(m[1], "--") {
		return ""
	}
	return m[1] + "/" + m[2]
}

// snapshotIn finds the snapshot of id in cache: the one refs/main names,
// else the only one there is. found is false when the cache does not hold
// id; dir is "" when it holds several snapshots and none is the main one
// (why says so).
func snapshotIn(cfs *confined.FS, cache, id string) (dir, why string, found bool) {
	repo := filepath.Join(cache, hfCacheFolder(id))
	snaps := filepath.Join(repo, "snapshots")
	if info, err := cfs.Stat(snaps); err != nil || !info.IsDir() {
		return "", "", false
	}
	if ref, err := cfs.ReadHead(filepath.Join(repo, "refs", "main"), 256); err == nil {
		rev := strings.TrimSpace(string(ref))
		if hfRevision.MatchString(rev) && rev != "." && rev != ".." {
			d := filepath.Join(snaps, rev)
			if _, err := cfs.Stat(filepath.Join(d, "config.json")); err == nil {
				return d, "refs/main", true
			}
		}
	}
	entries, err := cfs.ReadDir(snaps)
	if err != nil {
		return "", "", false
	}
	var withConfig []string
	for _, e := range entries {
		if len(withConfig) > 64 {
			break
		}
		if !e.IsDir() {
			continue
		}
		if _, err := cfs.Stat(filepath.Join(snaps, e.Name(), "config.json")); err == nil {
			withConfig = append(withConfig, e.Name())
		}
	}
	switch len(withConfig) {
	case 0:
		return "", "", false
	case 1:
		return filepath.Join(snaps, withConfig[0]), "its only snapshot", true
	}
	sort.Strings(withConfig)
	return "", fmt.Sprintf("%s holds %d snapshots with a config.json and no refs/main naming one of them", snaps, len(withConfig)), true
}

// modelFromHFCache reads id's config.json from the first cache that holds
// it.
func (e *estimator) modelFromHFCache(id string) bool {
	if !hfRepoID.MatchString(id) || strings.Contains(id, "..") {
		return false
	}
	for _, c := range e.opt.HFCaches {
		cfs := e.fs()
		if c.Named {
			cfs = confined.Unconfined
		}
		dir, why, found := snapshotIn(cfs, c.Dir, id)
		if !found {
			continue
		}
		if dir == "" {
			e.est.assume("the Hugging Face cache %s (%s) holds %s but kvlint cannot tell which revision runs: %s", c.Dir, c.From, id, why)
			return false
		}
		m, err := ReadModelConfigIn(cfs, dir)
		if err != nil {
			e.est.need("model")
			e.est.assume("the cached config.json of %s in %s cannot be used: %v", id, dir, err)
			return true
		}
		m.ID = id
		e.est.derive("model %q: config read from the Hugging Face cache %s (%s), snapshot %s (%s)", id, c.Dir, c.From, filepath.Base(dir), why)
		e.useModel(m, dir)
		return true
	}
	return false
}

package engine

import (
	"slices"

	"github.com/kvlint/kvlint/deploy"
)

// ImageLaunch is the argv a container of image runs when the deployment
// sets entrypoint and cmd (each nil when it does not set it), and what the
// image supplied to it.
//
// A deployment that sets its own entrypoint needs nothing from the image.
// One that does not leaves the image's ENTRYPOINT in force: the argv is
// then known only when the table has a row for the image, and ok is false
// otherwise, so that arguments meant for an unknown program are never
// read as a command of their own. An image whose reference is not known
// (a placeholder left unresolved) has no row.
//
// ep is nil when the image supplied no word.
func ImageLaunch(t *ImageTable, image deploy.Value, entrypoint, cmd []deploy.Value) (argv []deploy.Value, ep *deploy.ImageEntrypoint, ok bool) {
	if entrypoint != nil {
		return append(slices.Clip(entrypoint), cmd...), nil, true
	}
	im, found := LookupImage(t, image)
	if !found {
		return nil, nil, false
	}
	argv = ContainerArgv(image, im, nil, cmd)
	words := slices.Clone(im.Entrypoint)
	if cmd == nil {
		words = append(words, im.Cmd...)
	}
	if len(words) > 0 {
		ep = &deploy.ImageEntrypoint{Image: image.Raw, Words: words, Source: im.Source, Release: im.Release, Floating: im.Floating}
	}
	return argv, ep, true
}

// LookupImage is the table's row for an image value: none when the value
// is not known or is no image reference.
func LookupImage(t *ImageTable, image deploy.Value) (Image, bool) {
	if !image.Known {
		return Image{}, false
	}
	ref, ok := ParseImageRef(image.Raw)
	if !ok {
		return Image{}, false
	}
	return t.Lookup(ref)
}

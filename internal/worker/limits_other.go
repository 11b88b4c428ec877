//go:build !linux

package worker

// applyLimits does nothing here: Available is false off Linux, so no child
// is started.
func applyLimits() error { return nil }

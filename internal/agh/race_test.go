//go:build race

package agh

// The race detector slows the single-goroutine mutation tests tenfold
// without having anything to find in them: they sample instead.
func init() { raceDetector = true }

//go:build race

package testiut

// raceEnabled: this binary was built with the race detector.
const raceEnabled = true

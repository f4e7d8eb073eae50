//go:build !race

package testiut

const raceEnabled = false

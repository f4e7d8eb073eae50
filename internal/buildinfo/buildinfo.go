// Package buildinfo names aghcheck's version once, for every entry point:
// the aghcheck command and the Go test entry (package aghtest) print the
// same string for the same build.
package buildinfo

import (
	"runtime/debug"
	"strings"
	"sync"
)

// Module is aghcheck's module path.
const Module = "github.com/aghcheck/aghcheck"

// stamped is what `make build` and scripts/reference.sh set with
// -ldflags "-X github.com/aghcheck/aghcheck/internal/buildinfo.stamped=...".
var stamped string

// Version is aghcheck's version in this binary.
var Version = sync.OnceValue(func() string {
	info, ok := debug.ReadBuildInfo()
	return version(stamped, info, ok)
})

// version is the stamped version, else the version of aghcheck's module
// as the build records it (the main module, or a dependency when aghtest
// or a go run of the command is built inside another module), else "dev";
// with the VCS revision (and "-dirty" for uncommitted changes) when go
// build recorded one for aghcheck's own module and the version does not
// already name it.
func version(stamped string, info *debug.BuildInfo, ok bool) string {
	if stamped != "" {
		return stamped
	}
	v := "dev"
	if !ok || info == nil {
		return v
	}
	mod, own := info.Main, info.Main.Path == Module
	if !own {
		for _, d := range info.Deps {
			if d.Path == Module {
				mod = *d
				break
			}
		}
	}
	if mod.Replace != nil {
		// A replace names what was built: a checkout has no version, and
		// the VCS settings, if any, are not aghcheck's.
		mod, own = *mod.Replace, false
	}
	if mv := mod.Version; mv != "" && mv != "(devel)" {
		v = mv
	}
	if !own {
		return v // the VCS settings are the other module's
	}
	var rev string
	modified := false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if rev != "" && !strings.Contains(v, rev) {
		v += "+" + rev
		if modified {
			v += "-dirty"
		}
	}
	return v
}

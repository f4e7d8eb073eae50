package main

import (
	"runtime/debug"
	"strings"
)

// version is what `make build` stamps with -ldflags "-X main.version=...";
// empty otherwise, and then taken from the build info (see buildVersion).
var version string

// buildVersion is the version reports and --version print: the stamped
// one, else the module version `go install …@vX` records, else "dev";
// with the VCS revision (and "-dirty" for uncommitted changes) when go
// build recorded one and the version does not already name it.
func buildVersion(stamped string, info *debug.BuildInfo, ok bool) string {
	if stamped != "" {
		return stamped
	}
	v := "dev"
	if !ok || info == nil {
		return v
	}
	if mv := info.Main.Version; mv != "" && mv != "(devel)" {
		v = mv
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

func init() {
	info, ok := debug.ReadBuildInfo()
	version = buildVersion(version, info, ok)
}

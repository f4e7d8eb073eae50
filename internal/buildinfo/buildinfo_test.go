package buildinfo

import (
	"runtime/debug"
	"testing"
)

func TestVersion(t *testing.T) {
	vcs := func(main string, kv ...string) *debug.BuildInfo {
		info := &debug.BuildInfo{Main: debug.Module{Path: "github.com/aghcheck/aghcheck", Version: main}}
		for i := 0; i+1 < len(kv); i += 2 {
			info.Settings = append(info.Settings, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return info
	}
	// dep is a build of another module that requires aghcheck (aghtest in
	// a vendor's test, a go run of the command from there): its own VCS
	// revision is not aghcheck's.
	dep := func(v string, replace *debug.Module) *debug.BuildInfo {
		return &debug.BuildInfo{Main: debug.Module{Path: "example.com/vendor", Version: "(devel)"},
			Deps:     []*debug.Module{{Path: Module, Version: v, Replace: replace}},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef0123"}}}
	}
	const rev = "25cd1840a1b2c3d4e5f60718293a4b5c6d7e8f90"
	for _, tc := range []struct {
		name, stamped string
		info          *debug.BuildInfo
		want          string
	}{
		{"make build stamps it", "v0.4.0-3-g25cd184-dirty", vcs("(devel)", "vcs.revision", rev), "v0.4.0-3-g25cd184-dirty"},
		{"go install @v0.4.0", "", vcs("v0.4.0"), "v0.4.0"},
		{"checkout, clean", "", vcs("(devel)", "vcs.revision", rev, "vcs.modified", "false"), "dev+25cd1840a1b2"},
		{"checkout, edited", "", vcs("(devel)", "vcs.revision", rev, "vcs.modified", "true"), "dev+25cd1840a1b2-dirty"},
		{"pseudo-version already names the revision", "", vcs("v0.0.0-20261121061734-25cd1840a1b2+dirty", "vcs.revision", rev, "vcs.modified", "true"), "v0.0.0-20261121061734-25cd1840a1b2+dirty"},
		{"nothing known", "", vcs(""), "dev"},
		{"no build info", "", nil, "dev"},
		{"a dependency of another module", "", dep("v0.5.0", nil), "v0.5.0"},
		{"replaced by a checkout", "", dep("(devel)", &debug.Module{Path: "../aghcheck"}), "dev"},
		{"replaced by another version", "", dep("v0.5.0", &debug.Module{Path: Module, Version: "v0.5.1"}), "v0.5.1"},
		{"the command built from another module, replaced by a checkout", "",
			&debug.BuildInfo{Main: debug.Module{Path: Module, Version: "v0.0.0", Replace: &debug.Module{Path: "/src/aghcheck"}}}, "dev"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := version(tc.stamped, tc.info, tc.info != nil); got != tc.want {
				t.Errorf("%q, want %q", got, tc.want)
			}
		})
	}
}

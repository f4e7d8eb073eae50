package agh

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// Every example envelope of seeds 000 and 001 either validates or fails only
// with the rule of its documented erratum (docs/errata.md).
var seedExpectations = map[string][]string{
	"000-annotated-say-thread.json": nil,
	"000-direct-room-say.json":      {"ENV-DIRECT-ID-DERIVATION"}, // erratum 1
	"001-greet.json":                nil,
	"001-whois-request.json":        nil,
	"001-whois-response.json":       nil,
	"001-say-thread.json":           nil,
	"001-say-direct.json":           {"ENV-DIRECT-ID-DERIVATION"}, // erratum 1
	"001-say-work.json":             nil,
	"001-capability.json":           {"CAP-DIGEST"}, // erratum 2
	"001-receipt.json":              nil,
	"001-trace.json":                nil,
}

func TestSeedExamples(t *testing.T) {
	c := mustChecker(t, Options{})
	lax := mustChecker(t, Options{Errata: Errata{SkipDirectIDDerivation: true, SkipCapabilityDigest: true}})
	files := fixtureFiles(t, "seed")
	if len(files) != len(seedExpectations) {
		t.Errorf("%d seed fixtures, %d expectations", len(files), len(seedExpectations))
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			name := filepath.Base(f)
			want, ok := seedExpectations[name]
			if !ok {
				t.Errorf("%s: no expectation", name)
				return
			}
			res := checkFile(t, c, f)
			if got := ids(res.Findings); !reflect.DeepEqual(got, want) {
				t.Errorf("%s: rules %v, want %v%s", name, got, want, dump(res.Findings))
			}
			// With the erratum's flag on, every seed example is clean.
			if res := checkFile(t, lax, f); len(res.Findings) != 0 {
				t.Errorf("%s with errata flags: %s", name, dump(res.Findings))
			}
			if strings.HasPrefix(name, "001-capability") {
				for _, fd := range res.Findings {
					if fd.Rule.ID == "CAP-DIGEST" && RefusalReason(res.Findings) != "verification_failed" {
						t.Errorf("capability digest mismatch refuses with %q", RefusalReason(res.Findings))
					}
				}
			}
		})
	}
}

package agh

import (
	"path/filepath"
	"strings"
	"testing"
)

// The trust package's golden envelopes, run through the whole engine: the
// signed ones are verified and otherwise clean, every tampered one is
// rejected with the rule its name gives (a non-object proof is refused by
// ENV-PROOF-TYPE before the trust algorithm runs).
func TestTrustFixturesThroughEngine(t *testing.T) {
	c := mustChecker(t, Options{FullSchema: true})
	glob := func(dir string) []string {
		files, _ := filepath.Glob(filepath.Join("..", "..", "fixtures", "trust", dir, "*.json"))
		if len(files) == 0 {
			t.Skipf("no trust fixtures in %s", dir)
		}
		return files
	}
	// The golden envelopes send null reply_to/causation_id/expires_at like
	// the trust page's example: erratum 3, clean under null-as-absent.
	lax := mustChecker(t, Options{FullSchema: true, Errata: Errata{NullAsAbsent: true}})
	for _, f := range glob("valid") {
		t.Run(filepath.Base(f), func(t *testing.T) {
			res := c.CheckBytes(mustRead(t, f))
			if got := ids(res.Findings); res.Trust != "verified" || (len(got) > 0 && (len(got) != 1 || got[0] != RuleNullOptional.ID)) {
				t.Errorf("%s: trust %s%s", filepath.Base(f), res.Trust, dump(res.Findings))
			}
			if res := lax.CheckBytes(mustRead(t, f)); res.Trust != "verified" || len(res.Findings) != 0 {
				t.Errorf("%s under null-as-absent: trust %s%s", filepath.Base(f), res.Trust, dump(res.Findings))
			}
		})
	}
	for _, f := range glob("invalid") {
		t.Run(filepath.Base(f), func(t *testing.T) {
			name := filepath.Base(f)
			want, _, _ := strings.Cut(name, "__")
			if want == "TRUST-PROOF-OBJECT" {
				want = RuleProof.ID
			}
			res := c.CheckBytes(mustRead(t, f))
			found := false
			for _, fd := range res.Findings {
				found = found || fd.Rule.ID == want
			}
			if !found || res.Valid(false) {
				t.Errorf("%s: no %s%s", name, want, dump(res.Findings))
			}
			if res.Envelope != nil && res.Trust != "rejected" {
				t.Errorf("%s: trust %q", name, res.Trust)
			}
		})
	}
}

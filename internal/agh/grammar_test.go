package agh

import (
	"regexp"
	"testing"
)

// The hand-written matchers must agree with the patterns they replace.
var exactMatchers = map[string]func(string) bool{
	patChannel:         ValidChannel,
	patPeerID:          ValidPeerID,
	patDirectID:        ValidDirectID,
	patWorkID:          ValidWorkID,
	patThreadReference: ValidReferenceThreadID,
	patDigest:          isHexDigest[string],
	patSemver:          isSemver,
}

// patSemver is semver.org 2.0.0's regular expression (numbered groups
// left out), which IsSemver was until a hand-written matcher replaced it.
const patSemver = `^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)` +
	`(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?` +
	`(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$`

var grammarSamples = []string{
	"", "a", "A", "0", "-a", "a-", "a_b", "a.b", "a b", "builders", "ws_alpha", "a@b", "é", "a\n",
	"ops-coordinator.session-42", "direct_a610973e3c0d915853982f4bfe1534e8", "direct_a610973e3c0d915853982f4bfe1534e",
	"direct_A610973e3c0d915853982f4bfe1534e8", "work_x", "work_", "work_-_", "work_a/b", "thread_ab", "thread_abc",
	"thread_-bc", "thread_Abc", "sha256:56756e530d86ff5ec3dbdf2a0034fdcd69dae0f8d676dd04faca07f46b63c225",
	string(make([]byte, 64)), "c123456789012345678901234567890123456789012345678901234567890123",
	"c1234567890123456789012345678901234567890123456789012345678901234",
	"1.0.0", "0.0.0", "01.0.0", "1.02.0", "1.0.00", "1.0", "1.0.0.0", "1.0.0-", "1.0.0+", "1.0.0-0", "1.0.0-00",
	"1.0.0-0a", "1.0.0-a.01", "1.0.0-a..b", "1.0.0--", "1.0.0-x.7.z.92+build.5", "1.0.0+001", "1.0.0+a+b",
	"1.0.0-a+b-c", "1.0.0+a-b", "10.20.30", "1.0.0-α", " 1.0.0", "1.0.0 ", "1.0.0-rc.1+build.1-2", "v1.0.0",
}

func TestMatchersAgreeWithPatterns(t *testing.T) {
	for pat, fn := range exactMatchers {
		re := regexp.MustCompile(pat)
		for _, s := range grammarSamples {
			if fn(s) != re.MatchString(s) {
				t.Errorf("%s on %q: matcher %v, regexp %v", pat, s, fn(s), re.MatchString(s))
			}
		}
	}
	m, err := regexpEngine(patChannel)
	if err != nil || m.String() != patChannel || !m.MatchString("builders") {
		t.Error("known pattern not served by its matcher")
	}
	if m, err := regexpEngine(`^x+$`); err != nil || !m.MatchString("xx") || m.MatchString("y") {
		t.Error("fallback regexp")
	}
	if _, err := regexpEngine(`(`); err == nil {
		t.Error("bad pattern accepted")
	}
}

func FuzzMatchers(f *testing.F) {
	for _, s := range grammarSamples {
		f.Add(s)
	}
	res := map[string]*regexp.Regexp{}
	for pat := range exactMatchers {
		res[pat] = regexp.MustCompile(pat)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for pat, fn := range exactMatchers {
			if fn(s) != res[pat].MatchString(s) {
				t.Fatalf("%s on %q: matcher %v, regexp %v", pat, s, fn(s), res[pat].MatchString(s))
			}
		}
	})
}

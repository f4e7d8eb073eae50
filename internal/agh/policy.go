package agh

import (
	"math"
	"strconv"
	"strings"

	"github.com/aghcheck/aghcheck/internal/rules"
	"github.com/aghcheck/aghcheck/internal/trust"
)

// The checks a receiver adds from its own context: freshness against its
// clock, the trust profile and its require-verified policy, and (under
// erratum 11) raw secret material.

func (r *run) freshness() {
	now, age := r.c.opts.Now, r.c.opts.MaxReplayAge
	// A time beyond int64 reads as MaxInt64: far in the future.
	ts, tsOK, _ := unixSeconds(r.val[fTS])
	if exp, ok, _ := unixSeconds(r.val[fExpiresAt]); ok {
		if exp <= now {
			r.addMsg(RuleExpired, "/expires_at", "later than now ("+strconv.FormatInt(now, 10)+")", strconv.FormatInt(exp, 10),
				"expired "+strconv.FormatInt(now-exp, 10)+" s ago")
		}
	} else if tsOK && now-ts > age {
		r.addMsg(RuleReplayAge, "/ts", "at most "+strconv.FormatInt(age, 10)+" s old", strconv.FormatInt(now-ts, 10)+" s old",
			"no expires_at and older than the replay age")
	}
	if tsOK && NotSeconds(ts, now) {
		r.addMsg(RuleTSSeconds, "/ts", "Unix time in seconds (at most 10,000 years ahead of "+strconv.FormatInt(now, 10)+")", strconv.FormatInt(ts, 10),
			unitHint(ts, now))
	}
	if exp, ok, _ := unixSeconds(r.val[fExpiresAt]); ok && NotSeconds(exp, now) {
		r.addMsg(RuleTSSeconds, "/expires_at", "Unix time in seconds (at most 10,000 years ahead of "+strconv.FormatInt(now, 10)+")", strconv.FormatInt(exp, 10),
			unitHint(exp, now))
	}
	if r.c.opts.Errata.RejectFutureTS && tsOK && ts-now > age {
		r.add(RuleTSFuture, "/ts", "at most "+strconv.FormatInt(age, 10)+" s ahead of now", strconv.FormatInt(ts-now, 10)+" s ahead")
	}
}

// SecondsHorizon is how far ahead of a receiver's clock a ts or expires_at
// can lie and still be read as Unix seconds: 10,000 Gregorian years. A
// clock that is off (by minutes, or years for an unset one) and an expiry
// set far out (the year 9999, a common "never") stay inside it; every time
// in milliseconds since 1980, and every one in micro- or nanoseconds, lies
// past it: the page's "Unix time in seconds" cannot be meant by it.
const SecondsHorizon int64 = 10_000 * 31_556_952

// NotSeconds reports whether v, read as Unix seconds, lies past
// SecondsHorizon ahead of now (Unix seconds): a value in another unit. A
// value past int64 (read as MaxInt64) is left to ENV-TS-LITERAL, whose
// clause names it: no typed decoder holds it, so its unit is not the
// question, and one defect is reported once.
func NotSeconds(v, now int64) bool {
	return v > now && v-now > SecondsHorizon && v != math.MaxInt64
}

// unitHint says in which unit v reads as a time within fifty years of now,
// when one does.
func unitHint(v, now int64) string {
	const span = 50 * 31_556_952
	for _, u := range [...]struct {
		name string
		per  int64
	}{{"milliseconds", 1e3}, {"microseconds", 1e6}, {"nanoseconds", 1e9}} {
		if s := v / u.per; s > now-span && s < now+span {
			return "not seconds: it reads as a time in " + u.name
		}
	}
	return "not seconds: more than 10,000 years ahead of the receiver's clock"
}

// trust runs the trust profile when the envelope claims it (a proof, or a
// handle-shaped from) and applies the require-verified policy.
func (r *run) trust() string {
	proof, hasProof := r.val[fProof], r.has[fProof]
	from, _ := r.val[fFrom].(string)
	state := trust.Unverified
	if _, isObj := proof.(map[string]any); hasProof && proof != nil && !isObj {
		// ENV-PROOF-TYPE already refuses it; the algorithm's first step
		// would only say the same again.
		state = trust.Rejected
	} else if (hasProof && proof != nil) || (!ValidPeerID(from) && strings.IndexByte(from, '@') >= 0 && trust.IsHandle(from)) {
		var fs []rules.Finding
		state, fs = trust.Evaluate(r.env)
		r.fs = append(r.fs, fs...)
	}
	if state == trust.Unverified && r.c.opts.RequireVerified {
		r.add(RuleRequireVerified, "/proof", "a verified proof", string(state))
	}
	return string(state)
}

// RejectSecretKeys' key list: the reference runtime's names of raw secret
// material, compared case-insensitively without '_', '-' and '.'.
var secretKeys = map[string]bool{
	"apikey": true, "accesstoken": true, "refreshtoken": true, "mcpauthtoken": true,
	"oauthcode": true, "authorizationcode": true, "codeverifier": true, "pkceverifier": true,
	"secretbinding": true, "clientsecret": true, "authorization": true, "password": true,
	"secret": true, "token": true, "claimtoken": true,
}

// IsSecretKey reports whether a member name names raw secret material.
func IsSecretKey(k string) bool {
	n := strings.NewReplacer("_", "", "-", "", ".", "").Replace(strings.ToLower(strings.TrimSpace(k)))
	return secretKeys[n]
}

func (r *run) secrets() {
	var walk func(v any, ptr string)
	walk = func(v any, ptr string) {
		switch t := v.(type) {
		case map[string]any:
			for k, e := range t {
				p := ptr + rules.Pointer(k)
				if IsSecretKey(k) && !emptyValue(e) {
					r.add(RuleSecret, p, "no raw secret material", "member "+strconv.Quote(k))
					continue
				}
				walk(e, p)
			}
		case []any:
			for i, e := range t {
				walk(e, ptr+"/"+strconv.Itoa(i))
			}
		}
	}
	for _, name := range [...]string{"body", "proof", "ext"} {
		walk(r.env[name], "/"+name)
	}
}

func emptyValue(v any) bool {
	switch t := v.(type) {
	case nil:
		return true
	case string:
		return strings.TrimSpace(t) == ""
	case []any:
		return len(t) == 0
	case map[string]any:
		return len(t) == 0
	}
	return false
}

package sanitize

import (
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// Redacted replaces a secret wherever it would be printed.
const Redacted = "[redacted]"

// The secrets of this process: a token or password for the broker, the
// contents of a creds file, the HMAC keys of a trust profile. They are
// registered once, where aghcheck reads them, and redacted in every output
// from then on, whoever wrote the string that carries them (an IUT that
// logs its token, a broker error that quotes a URL).
var secrets struct {
	sync.Mutex // held by AddSecret
	list       []string
	// replacer is read without the lock: Redact runs on every string of
	// every output (each document aghcheck validate reports).
	replacer atomic.Pointer[strings.Replacer]
}

// minSecret is the shortest secret redacted: a shorter one would redact
// common words and numbers all over a report, and guards nothing.
const minSecret = 4

// AddSecret registers secrets to redact from every output. Empty and very
// short strings are ignored. Each line of a multi-line secret (a creds
// file) is registered too.
func AddSecret(ss ...string) {
	secrets.Lock()
	defer secrets.Unlock()
	add := func(s string) {
		s = strings.TrimSpace(s)
		if len(s) < minSecret || slices.Contains(secrets.list, s) {
			return
		}
		secrets.list = append(secrets.list, s)
		if e := url.QueryEscape(s); e != s {
			secrets.list = append(secrets.list, e) // as it appears inside a URL
		}
	}
	for _, s := range ss {
		add(s)
		if strings.Contains(s, "\n") {
			for _, l := range strings.Split(s, "\n") {
				add(l)
			}
		}
	}
	// Longest first, so a secret that contains another is replaced whole.
	slices.SortFunc(secrets.list, func(a, b string) int { return len(b) - len(a) })
	pairs := make([]string, 0, 2*len(secrets.list))
	for _, s := range secrets.list {
		pairs = append(pairs, s, Redacted)
	}
	secrets.replacer.Store(strings.NewReplacer(pairs...))
}

// Redact replaces every registered secret in s, and the password of every
// URL in s that carries one (nats://user:pass@host).
func Redact(s string) string {
	if r := secrets.replacer.Load(); r != nil {
		s = r.Replace(s)
	}
	if strings.Contains(s, "@") && strings.Contains(s, "://") {
		s = redactUserInfo(s)
	}
	return s
}

// redactUserInfo replaces the user info of each URL in s (scheme://user:pass@
// or scheme://token@): a password or token written into a URL is a secret
// even when aghcheck did not read it itself.
func redactUserInfo(s string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, "://")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i+3])
		s = s[i+3:]
		// The authority ends at the first '/', '?', '#' or blank.
		end := strings.IndexAny(s, "/?# \t\n\"'<>,")
		if end < 0 {
			end = len(s)
		}
		if at := strings.LastIndex(s[:end], "@"); at >= 0 {
			b.WriteString(Redacted)
			s = s[at:]
		}
	}
}

// URL is u with its user info redacted, for a URL aghcheck prints as such
// (the broker's, in a report header).
func URL(u string) string { return Redact(u) }

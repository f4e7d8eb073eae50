package redkey

import (
	"strings"
	"unicode"
)

// The seed caps prose by sentences and words without saying how to count
// them. These two functions are the one definition (docs/formats.md repeats
// it for people); they err towards counting fewer, so a finding is never
// raised on a doubtful boundary.

// Words counts the whitespace-separated tokens that hold at least one letter
// or digit: "e.g.", "3.5", "don't", "well-known" and a URL are one word each;
// a lone dash or ellipsis is none.
func Words(s string) int {
	n := 0
	for _, tok := range strings.Fields(s) {
		if hasContent(tok) {
			n++
		}
	}
	return n
}

// Sentences counts sentences in s. A sentence ends at a token whose text
// (closing quotes and brackets aside) ends in '.', '!', '?' or an ellipsis,
// at a blank line, or at the end of the text, and must hold a letter or
// digit. A period does not end a sentence when it is part of a token that
// goes on ("3.5", "example.com/x", "roles.ba"), ends a known abbreviation
// ("etc.", "approx.") or a dotted run of single letters ("e.g.", "i.e.",
// "U.S.", "J."), or follows a bare number ("step 2. then"); an ellipsis
// does not end one when the next word starts in lower case.
func Sentences(s string) int {
	n := 0
	open := false // the current sentence has content
	lines := strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	var toks []string
	for _, line := range lines {
		if strings.TrimSpace(line) == "" {
			toks = append(toks, "") // paragraph break
			continue
		}
		toks = append(toks, strings.Fields(line)...)
	}
	for i, tok := range toks {
		if tok == "" {
			if open {
				n++
				open = false
			}
			continue
		}
		if hasContent(tok) {
			open = true
		}
		next := ""
		if i+1 < len(toks) {
			next = toks[i+1]
		}
		if open && endsSentence(tok, next) {
			n++
			open = false
		}
	}
	if open {
		n++
	}
	return n
}

func hasContent(tok string) bool {
	return strings.IndexFunc(tok, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0
}

var abbreviations = map[string]bool{
	"etc.": true, "vs.": true, "cf.": true, "approx.": true, "incl.": true, "esp.": true, "viz.": true,
	"mr.": true, "mrs.": true, "ms.": true, "dr.": true, "prof.": true, "jr.": true, "sr.": true, "fig.": true, "al.": true,
}

func endsSentence(tok, next string) bool {
	core := strings.TrimRight(tok, "\"'”’)]}»")
	if core == "" {
		return false
	}
	// The run of terminal punctuation at the end of core.
	end := len(core)
	for end > 0 && strings.ContainsRune(".!?", rune(core[end-1])) {
		end--
	}
	run := core[end:]
	if strings.HasSuffix(core, "…") {
		run = "…"
		end = len(core) - len("…")
	}
	switch {
	case run == "":
		return false
	case strings.ContainsAny(run, "!?"):
		return true
	case run == "…" || strings.HasPrefix(run, ".."):
		first, _ := firstRune(next)
		return !unicode.IsLower(first)
	}
	word := strings.ToLower(core)
	if next == "" {
		return true
	}
	// A short capitalised word with a period, before a lower-case word or a
	// number, reads as an abbreviation aghcheck does not list ("the Jan.
	// release", "No. 5"): doubtful, so no boundary. "Tests pass. output_ref
	// ..." still ends a sentence.
	if first, _ := firstRune(next); (unicode.IsLower(first) || unicode.IsDigit(first)) && shortCapitalised(core[:end]) {
		return false
	}
	if abbreviations[word] || dottedLetters(word) || isDigits(core[:end]) {
		return false
	}
	return true
}

// dottedLetters matches "e.g.", "i.e.", "u.s.", "j.": single letters each
// followed by a period.
func dottedLetters(w string) bool {
	rs := []rune(w)
	if len(rs) < 2 || len(rs)%2 != 0 {
		return false
	}
	for i := 0; i < len(rs); i += 2 {
		if !unicode.IsLetter(rs[i]) || rs[i+1] != '.' {
			return false
		}
	}
	return true
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

func firstRune(s string) (rune, bool) {
	for _, r := range s {
		return r, true
	}
	return 0, false
}

// shortCapitalised matches "Jan", "No", "Dept": one capital letter and at
// most three lower-case letters, the shape of an abbreviation.
func shortCapitalised(w string) bool {
	rs := []rune(w)
	if len(rs) < 2 || len(rs) > 4 || !unicode.IsUpper(rs[0]) {
		return false
	}
	for _, r := range rs[1:] {
		if !unicode.IsLower(r) {
			return false
		}
	}
	return true
}

package redkey

import (
	"strings"
	"testing"
)

func TestSentences(t *testing.T) {
	for _, c := range []struct {
		text string
		want int
	}{
		{"", 0},
		{"   \n\t", 0},
		{"— …", 0},
		{"One sentence without a period", 1},
		{"One sentence.", 1},
		{"One. Two.", 2},
		{"One! Two? Three.", 3},
		{"Really?! Yes.", 2},
		// abbreviations
		{"Use a queue, e.g. NATS or Kafka.", 1},
		{"Use a queue (e.g., NATS) first.", 1},
		{"Pick one, i.e. the cheapest.", 1},
		{"Built in the U.S. by a small team.", 1},
		{"Go, Rust, etc. are fine.", 1},
		{"Costs approx. 3 dollars.", 1},
		{"Reviewed by J. Smith today.", 1},
		{"Compare A vs. B carefully.", 1},
		{"It ends with etc.", 1},
		// decimals, versions, numbers
		{"Costs 3.5 dollars.", 1},
		{"Ship v3.5. Then rest.", 2},
		{"Version 1.0 is current.", 1},
		{"Do step 2. then step 3.", 1},
		{"Pay 0.00 now.", 1},
		// URLs, paths, slugs, identifiers
		{"See https://example.com/a.b?x=1. Then go.", 2},
		{"Read docs/specs/wire.md first.", 1},
		{"Route to roles.ba via task.blocked when stuck.", 1},
		{"Tests pass. output_ref written to Storage.", 2},
		// ellipses
		{"Wait... then go.", 1},
		{"The Jan. release ships.", 1},
		{"No. 5 is done.", 1},
		{"Ship it. Then rest.", 2},
		{"It ships. (then we rest)", 2},
		{"Ask Bob. he knows.", 1}, // reads like "Jan. release": fewer, by design
		{"Wait... Then go.", 2},
		{"Wait… then go.", 1},
		{"Wait… Then go.", 2},
		{"It trails off...", 1},
		// quotes and brackets after the terminator
		{`He said "stop." Then he left.`, 2},
		{"(This is aside.) Main point.", 2},
		// line structure
		{"First line\nstill the same sentence.", 1},
		{"Heading\n\nBody text.", 2},
		{"Line one.\r\nLine two.", 2},
		// documented limits, both towards fewer sentences
		{"We use X, etc. Then ship.", 1},
		{"Plan A. Then B.", 1},
		// the seed's own prose
		{"I implement tasks in the developer work queue — nothing more, nothing less.", 1},
		{"I read the brief, implement exactly what it specifies, verify my output, and stop. I do not improvise. I do not extend scope.", 3},
		{"Terse and technical. Facts, not feelings.", 2},
		{"One sentence: what must be true when this task is done.", 1},
		{"2–3 sentences max. How I approach problems.", 2},
	} {
		t.Run(textName(c.text), func(t *testing.T) {
			if got := Sentences(c.text); got != c.want {
				t.Errorf("Sentences(%q) = %d, want %d", c.text, got, c.want)
			}
		})
	}
}

func TestWords(t *testing.T) {
	for _, c := range []struct {
		text string
		want int
	}{
		{"", 0},
		{"Max 200 words.", 3},
		{"e.g. 3.5 don't well-known https://example.com/a?b=c", 5},
		{"nothing more — nothing less", 4}, // the dash is not a word
		{"wait ... go", 2},
		{"tabs\tand\nnewlines  count", 4},
		{"Ünïcödé wörds ✓ 日本語", 3},
	} {
		t.Run(textName(c.text), func(t *testing.T) {
			if got := Words(c.text); got != c.want {
				t.Errorf("Words(%q) = %d, want %d", c.text, got, c.want)
			}
		})
	}
}

// textName names a prose case's subtest: the text, "empty" for none, cut
// after 32 characters with "…" when it is longer.
func textName(text string) string {
	if text == "" {
		return "empty"
	}
	if r := []rune(text); len(r) > 32 {
		return string(r[:32]) + "…"
	}
	return text
}

// The caps are inclusive: exactly 200 and 150 words pass.
func TestWordCapBoundaries(t *testing.T) {
	words := func(n int) string { return strings.TrimSpace(strings.Repeat("word ", n)) }
	brief := func(ctx string) map[string]any {
		return map[string]any{"wire": "1.0", "type": "brief", "sender": "system", "ts": "2026-04-28T00:00:00Z",
			"payload": map[string]any{"goal": "X is built.", "context": ctx}}
	}
	w := NewWire(WireOptions{})
	count := func(doc map[string]any, id string) int {
		n := 0
		for _, f := range w.Check(nil, doc) {
			if f.Rule.ID == id {
				n++
			}
		}
		return n
	}
	if count(brief(words(200)), "RKW-BRIEF-CONTEXT-WORDS") != 0 || count(brief(words(201)), "RKW-BRIEF-CONTEXT-WORDS") != 1 {
		t.Error("context cap is not 200 words inclusive")
	}
	complete := func(s string) map[string]any {
		return map[string]any{"wire": "1.0", "type": "complete", "sender": "runner", "ts": "2026-04-28T00:00:00Z",
			"payload": map[string]any{"summary": s}}
	}
	if count(complete(words(150)), "RKW-COMPLETE-SUMMARY-WORDS") != 0 || count(complete(words(151)), "RKW-COMPLETE-SUMMARY-WORDS") != 1 {
		t.Error("summary cap is not 150 words inclusive")
	}
}

func FuzzSentences(f *testing.F) {
	for _, s := range []string{"One. Two.", "e.g. x", "Wait... then", "3.5.", "\n\n.", "“Quoted.” Next…"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, w := Sentences(s), Words(s)
		if n < 0 || w < 0 || n > w {
			t.Fatalf("Sentences=%d Words=%d for %q: a sentence needs a word", n, w, s)
		}
	})
}

func BenchmarkSentences(b *testing.B) {
	text := strings.Repeat("I read the brief, e.g. the goal, and stop. Version 3.5 ships... then rest. ", 50)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		Sentences(text)
	}
}

package validate_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aghcheck/aghcheck/internal/agh"
	"github.com/aghcheck/aghcheck/internal/rules"
	"github.com/aghcheck/aghcheck/internal/validate"
)

// The benchmarks run the real AGH engine. Their corpus is the file named by
// $AGHCHECK_BENCH_CORPUS (NDJSON, e.g. from scripts/gen-envelopes) or, by
// default, the valid and seed fixtures (all six kinds) repeated to 20,000
// envelopes.

type aghTrust struct{ *agh.Checker }

func (p aghTrust) CheckTrust(raw []byte, v any) ([]rules.Finding, string) {
	r := p.CheckValue(raw, v)
	return r.Findings, r.Trust
}

func benchValidator(b *testing.B, workers int, stdin *bytes.Reader) *validate.Validator {
	c, err := agh.NewChecker(agh.Options{})
	if err != nil {
		b.Fatal(err)
	}
	v, err := validate.New(validate.Options{Profiles: []validate.Profile{aghTrust{c}}, Workers: workers, Stdin: stdin})
	if err != nil {
		b.Fatal(err)
	}
	return v
}

func corpusLines(b *testing.B) [][]byte {
	if p := os.Getenv("AGHCHECK_BENCH_CORPUS"); p != "" {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		return bytes.Split(bytes.TrimSpace(data), []byte("\n"))
	}
	var base [][]byte
	for _, dir := range []string{"valid", "seed"} {
		files, _ := filepath.Glob(filepath.Join("..", "..", "fixtures", "agh", dir, "*.json"))
		for _, f := range files {
			raw, err := os.ReadFile(f)
			if err != nil {
				b.Fatal(err)
			}
			var buf bytes.Buffer
			if err := json.Compact(&buf, raw); err != nil {
				b.Fatal(err)
			}
			base = append(base, buf.Bytes())
		}
	}
	if len(base) == 0 {
		b.Skip("no fixtures")
	}
	lines := make([][]byte, 0, 20000)
	for len(lines) < 20000 {
		lines = append(lines, base...)
	}
	return lines
}

// BenchmarkValidateDocument is the per-envelope cost on one goroutine:
// strict decoding plus every rule, as the pipeline's workers run it.
func BenchmarkValidateDocument(b *testing.B) {
	lines := corpusLines(b)
	v := benchValidator(b, 1, nil)
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		d := v.CheckDocument(lines[n%len(lines)], 1)
		_ = d
		n++
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "envelopes/s")
}

func benchRun(b *testing.B, data []byte, docs int) {
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		r := bytes.NewReader(data)
		v := benchValidator(b, 0, r)
		got := 0
		sum, err := v.Run(context.Background(), []validate.Input{{Stdin: true}}, func(d *validate.Document) error {
			got++
			return nil
		})
		if err != nil || got != docs || sum.Documents != docs {
			b.Fatalf("err=%v, %d documents of %d", err, got, docs)
		}
	}
	b.ReportMetric(float64(docs*b.N)/b.Elapsed().Seconds(), "envelopes/s")
}

// BenchmarkValidateNDJSON is the whole pipeline (split, decode, check,
// ordered emit) over NDJSON, with one worker per -cpu.
func BenchmarkValidateNDJSON(b *testing.B) {
	lines := corpusLines(b)
	benchRun(b, append(bytes.Join(lines, []byte("\n")), '\n'), len(lines))
}

// BenchmarkValidateArray is the same over one JSON array.
func BenchmarkValidateArray(b *testing.B) {
	lines := corpusLines(b)
	var buf bytes.Buffer
	buf.WriteString("[\n")
	buf.Write(bytes.Join(lines, []byte(",\n")))
	buf.WriteString("\n]\n")
	benchRun(b, buf.Bytes(), len(lines))
}

// TestBenchCorpusValid keeps the default corpus honest: the seed examples
// fail only with their documented errata, the valid fixtures pass.
func TestBenchCorpusValid(t *testing.T) {
	b := &testing.B{}
	_ = b
	files, _ := filepath.Glob(filepath.Join("..", "..", "fixtures", "agh", "valid", "*.json"))
	if len(files) == 0 {
		t.Skip("no fixtures")
	}
	c, err := agh.NewChecker(agh.Options{})
	if err != nil {
		t.Fatal(err)
	}
	v, _ := validate.New(validate.Options{Profiles: []validate.Profile{aghTrust{c}}})
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			raw, _ := os.ReadFile(f)
			if d := v.CheckDocument(raw, 1); !d.Valid || d.Profile != "agh" || d.Trust == "" {
				var ids []string
				for _, f := range d.Findings {
					ids = append(ids, f.Rule.ID)
				}
				t.Errorf("valid=%v profile=%q trust=%q %s", d.Valid, d.Profile, d.Trust, strings.Join(ids, ","))
			}
		})
	}
}

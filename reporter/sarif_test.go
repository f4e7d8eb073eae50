package reporter

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/aghcheck/aghcheck/internal/catalogue"
	"github.com/aghcheck/aghcheck/internal/rules"
	"github.com/aghcheck/aghcheck/internal/validate"
)

// testdata/sarif-schema-2.1.0.json is the official SARIF 2.1.0 schema
// (OASIS, errata 01), as published in oasis-tcs/sarif-spec at
// sarif-2.1/schema/sarif-schema-2.1.0.json (commit e058381).
var sarifSchemaOnce = sync.OnceValues(func() (*jsonschema.Schema, error) {
	f, err := os.Open(filepath.Join("testdata", "sarif-schema-2.1.0.json"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(sarifSchema, doc); err != nil {
		return nil, err
	}
	return c.Compile(sarifSchema)
})

func checkSARIF(t *testing.T, log []byte) {
	t.Helper()
	sch, err := sarifSchemaOnce()
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(log))
	if err != nil {
		t.Fatalf("not JSON: %v\n%s", err, log)
	}
	if err := sch.Validate(inst); err != nil {
		t.Fatalf("not valid SARIF 2.1.0: %v", err)
	}
}

// Every variant of the sample, and the whole catalogue, is valid SARIF;
// the driver lists every rule with its clause; each result points at its
// rule, file, line and JSON pointer.
func TestSARIF(t *testing.T) {
	for _, c := range []struct {
		name string
		o    Options
	}{{"default", Options{}}, {"quiet", Options{Quiet: true}}, {"strict", Options{Strict: true}}, {"catalogue", Options{Rules: catalogue.All(), Version: "1.2.3"}}} {
		t.Run(c.name, func(t *testing.T) {
			checkSARIF(t, render(t, "sarif", c.o))
		})
	}
	var empty bytes.Buffer
	w, _ := Validate.New("sarif", &empty, Options{})
	if err := w.Finish(validate.Summary{}); err != nil {
		t.Fatal(err)
	}
	checkSARIF(t, empty.Bytes())
	// The check can fail: a tool without its driver is not SARIF.
	sch, _ := sarifSchemaOnce()
	bad, _ := jsonschema.UnmarshalJSON(strings.NewReader(`{"version":"2.1.0","runs":[{"tool":{}}]}`))
	if sch.Validate(bad) == nil {
		t.Error("the schema accepts a tool without a driver")
	}

	var log struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Rules []struct {
						ID   string `json:"id"`
						Help struct {
							Text string `json:"text"`
						} `json:"help"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Results []struct {
				RuleID    string `json:"ruleId"`
				RuleIndex int    `json:"ruleIndex"`
				Level     string `json:"level"`
				Locations []struct {
					Physical struct {
						Artifact struct {
							URI string `json:"uri"`
						} `json:"artifactLocation"`
						Region struct {
							StartLine int `json:"startLine"`
						} `json:"region"`
					} `json:"physicalLocation"`
					Logical []struct {
						Name string `json:"fullyQualifiedName"`
					} `json:"logicalLocations"`
				} `json:"locations"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(empty.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	all := catalogue.All()
	if got := log.Runs[0].Tool.Driver.Rules; len(got) != len(all) || got[0].ID != all[0].ID || !strings.Contains(got[0].Help.Text, all[0].Clause) {
		t.Errorf("driver rules: %d of %d, first %+v", len(got), len(all), got[0])
	}

	if err := json.Unmarshal(render(t, "sarif", Options{}), &log); err != nil {
		t.Fatal(err)
	}
	res := log.Runs[0].Results
	if len(res) != 4 {
		t.Fatalf("%d results, want 4", len(res))
	}
	first := res[0]
	loc := first.Locations[0]
	if first.RuleID != "INPUT-DUPLICATE-KEY" || testCatalogue[first.RuleIndex] != rules.InputDuplicateKey || first.Level != "error" ||
		loc.Physical.Artifact.URI != "msgs/b.ndjson" || loc.Physical.Region.StartLine != 3 || loc.Logical[0].Name != "/body/text" {
		t.Errorf("first result %+v", first)
	}
}

func TestFileURI(t *testing.T) {
	for in, want := range map[string]string{
		"msgs/a.json":      "msgs/a.json",
		"my msgs/a b.json": "my%20msgs/a%20b.json",
		"/abs/x.ndjson":    "file:///abs/x.ndjson",
		"odd#name%.json":   "odd%23name%25.json",
		"2026:04.json":     "./2026:04.json",
	} {
		t.Run(in, func(t *testing.T) {
			if got := fileURI(in); got != want {
				t.Errorf("fileURI(%q) = %q, want %q", in, got, want)
			}
		})
	}
}

package main

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const goodFixture = "../../fixtures/agh/valid/greet-full.json"

// An input that cannot be read is in the report, not only on stderr:
// SARIF's execution is unsuccessful with a notification, JUnit has an error
// test case, GitHub an error annotation; a run with nothing readable still
// writes a whole report; and the exit status is 2.
func TestValidateInputErrorsInReports(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing.json")
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"good-and-missing", []string{goodFixture, missing}},
		{"missing-only", []string{missing}},
	} {
		args := tc.args
		t.Run(tc.name, func(t *testing.T) {
			code, out, _ := runCLI(t, "", append([]string{"validate", "--format", "sarif"}, args...)...)
			var log struct {
				Runs []struct {
					Invocations []struct {
						ExecutionSuccessful bool `json:"executionSuccessful"`
						Notifications       []struct {
							Level   string `json:"level"`
							Message struct{ Text string }
						} `json:"toolExecutionNotifications"`
					}
				}
			}
			if err := json.Unmarshal([]byte(out), &log); err != nil || len(log.Runs) != 1 || len(log.Runs[0].Invocations) != 1 {
				t.Fatalf("%v: exit %d, not a SARIF log (%v):\n%s", args, code, err, out)
			}
			inv := log.Runs[0].Invocations[0]
			if code != exitUsageErr || inv.ExecutionSuccessful || len(inv.Notifications) != 1 ||
				inv.Notifications[0].Level != "error" || !strings.Contains(inv.Notifications[0].Message.Text, "missing.json: no such file") {
				t.Errorf("%v: exit %d, invocation %+v", args, code, inv)
			}

			code, out, _ = runCLI(t, "", append([]string{"validate", "--format", "junit"}, args...)...)
			var suites struct {
				Errors int `xml:"errors,attr"`
				Suites []struct {
					Name  string `xml:"name,attr"`
					Cases []struct {
						Error *struct {
							Message string `xml:"message,attr"`
							Type    string `xml:"type,attr"`
						} `xml:"error"`
					} `xml:"testcase"`
				} `xml:"testsuite"`
			}
			if err := xml.Unmarshal([]byte(out), &suites); err != nil {
				t.Fatalf("%v: not JUnit XML (%v):\n%s", args, err, out)
			}
			found := false
			for _, s := range suites.Suites {
				for _, c := range s.Cases {
					found = found || (s.Name == missing && c.Error != nil && c.Error.Type == "input" && c.Error.Message == "no such file or directory")
				}
			}
			if code != exitUsageErr || suites.Errors != 1 || !found || len(suites.Suites) != len(args) {
				t.Errorf("%v: exit %d, JUnit without the input's error test case:\n%s", args, code, out)
			}

			_, out, _ = runCLI(t, "", append([]string{"validate", "--format", "github"}, args...)...)
			if !strings.Contains(out, "::error file="+missing+",title=input error::no such file or directory") {
				t.Errorf("%v: no annotation for the missing input:\n%s", args, out)
			}
		})
	}
}

// Annotations point at the value at fault in the file as written: in a
// pretty-printed envelope that is not line 1.
func TestValidateAnnotationsAtThePointer(t *testing.T) {
	raw, err := os.ReadFile("../../fixtures/agh/valid/say-direct-derived.json")
	if err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(string(raw), `"channel": "builders"`, `"channel": "Builders"`, 1)
	path := filepath.Join(t.TempDir(), "say.json")
	if err := os.WriteFile(path, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	// Line 4, column 14: where "Builders" starts.
	_, out, _ := runCLI(t, "", "validate", "--format", "github", path)
	if !strings.Contains(out, "::error file="+path+",line=4,col=14,title=ENV-CHANNEL-GRAMMAR::") {
		t.Errorf("github annotation not at 4:14:\n%s", out)
	}
	_, out, _ = runCLI(t, "", "validate", "--format", "sarif", path)
	if !strings.Contains(out, `"region":{"startLine":4,"startColumn":14}`) {
		t.Errorf("SARIF region not at 4:14:\n%s", out)
	}
	_, out, _ = runCLI(t, "", "validate", "--format", "json", path)
	if !strings.Contains(out, `"pointer":"/channel","line":4,"column":14`) {
		t.Errorf("JSON finding not at 4:14:\n%s", out)
	}
}

package olympus

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/aghcheck/aghcheck/internal/rules"
)

func signedFixture(t testing.TB) (raw []byte, doc map[string]any) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(fixtures, "valid", "assign-with-attachments.json"))
	must(t, err)
	return raw, decode(t, raw).(map[string]any)
}

// TestCanonicalContent pins the definition by an independent computation:
// the JCS bytes of a small document are written out by hand.
func TestCanonicalContent(t *testing.T) {
	doc := decode(t, []byte(`{"persona":"p","authentication":{"signature":"ff","sender_persona":"coder","b":1.50},"envelope":{"z":"é","a":[true,null,1e2]}}`)).(map[string]any)
	got, err := CanonicalContent(doc)
	must(t, err)
	want := `{"authentication":{"b":1.5,"sender_persona":"coder"},"envelope":{"a":[true,null,100],"z":"é"},"persona":"p"}`
	if string(got) != want {
		t.Fatalf("canonical content:\n got %s\nwant %s", got, want)
	}
	if doc["authentication"].(map[string]any)["signature"] != "ff" {
		t.Fatal("CanonicalContent modified its input")
	}
	m := hmac.New(sha256.New, []byte("k"))
	m.Write([]byte(want))
	sig, err := Signature(doc, []byte("k"))
	must(t, err)
	if sig != hex.EncodeToString(m.Sum(nil)) {
		t.Fatalf("Signature = %s", sig)
	}
}

func TestSignThenVerify(t *testing.T) {
	key := []byte("round-trip key")
	_, doc := signedFixture(t)
	delete(doc["authentication"].(map[string]any), "signature")
	must(t, Sign(doc, key))
	p, err := New(Options{HMACKey: key, AttachmentsRoot: filepath.Join(fixtures, "attachments")})
	must(t, err)
	if got := p.Check(nil, doc); len(got) != 0 {
		t.Fatalf("freshly signed document: %v", got)
	}
	// Signing again replaces, and does not sign over, the old signature.
	first := doc["authentication"].(map[string]any)["signature"]
	must(t, Sign(doc, key))
	if doc["authentication"].(map[string]any)["signature"] != first {
		t.Fatal("re-signing changed the signature")
	}
	// Every covered member matters: change one, verification fails.
	doc["envelope"].(map[string]any)["target_agent"] = "tdd-tester"
	if got := ids(p.Check(nil, doc)); !reflect.DeepEqual(got, []string{"OLY-SIGNATURE"}) {
		t.Fatalf("after tampering: %v", got)
	}
	// The same document round-tripped through JSON text verifies the same.
	must(t, Sign(doc, key))
	b, _ := json.Marshal(doc)
	if got := p.Check(b, decode(t, b)); len(got) != 0 {
		t.Fatalf("after a JSON round trip: %v", got)
	}
}

func TestSignErrors(t *testing.T) {
	if err := Sign(map[string]any{"persona": "x"}, []byte("k")); err == nil || !strings.Contains(err.Error(), "authentication") {
		t.Fatalf("Sign without authentication: %v", err)
	}
	if err := Sign(map[string]any{"authentication": map[string]any{}}, nil); err == nil {
		t.Fatal("Sign with an empty key: want error")
	}
}

// TestNoKeyNoSignatureCheck: without a key the signature is not judged,
// and the one finding says so (a warning), so the result never reads as a
// verified signature.
func TestNoKeyNoSignatureCheck(t *testing.T) {
	raw, doc := signedFixture(t)
	doc["authentication"].(map[string]any)["signature"] = "not even hex"
	p, err := New(Options{AttachmentsRoot: filepath.Join(fixtures, "attachments")})
	must(t, err)
	got := p.Check(raw, doc)
	if len(got) != 1 || got[0].Rule != RuleSignatureUnchecked || got[0].Rule.Severity != rules.Warning {
		t.Fatalf("without a key: got %v, want OLY-SIGNATURE-UNCHECKED (a warning) alone", got)
	}
	// An unsigned document without a key has nothing left unchecked.
	delete(doc["authentication"].(map[string]any), "signature")
	if got := p.Check(raw, doc); len(got) != 0 {
		t.Fatalf("unsigned, without a key: got %v", got)
	}
}

func TestLoadKey(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		must(t, os.WriteFile(p, []byte(content), 0o600))
		return p
	}
	t.Setenv(KeyEnv, "from-env")
	for _, c := range []struct {
		name       string
		file, want string
		err        bool
	}{
		{"lf", write("lf", "secret\n"), "secret", false},
		{"crlf", write("crlf", "secret\r\n"), "secret", false},
		{"two-line-endings", write("two", "secret\n\n"), "secret\n", false}, // only one line ending is dropped
		{"raw", write("raw", "sec ret"), "sec ret", false},
		{"empty", write("empty", "\n"), "", true},
		{"missing", filepath.Join(dir, "missing"), "", true},
		{"environment", "", "from-env", false}, // no file: the environment
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := LoadKey(c.file)
			if (err != nil) != c.err || string(got) != c.want {
				t.Errorf("LoadKey(%s) = %q, %v", c.file, got, err)
			}
		})
	}
	t.Setenv(KeyEnv, "")
	if got, err := LoadKey(""); got != nil || err != nil {
		t.Errorf("no file, no env: %q, %v", got, err)
	}
}

// TestCheckDoesNotMutate runs the full profile from many goroutines over one
// shared document (run with -race) and checks the document is unchanged.
func TestCheckDoesNotMutate(t *testing.T) {
	raw, doc := signedFixture(t)
	before, _ := json.Marshal(doc)
	p := fixtureProfile(t)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if got := p.Check(raw, doc); len(got) != 0 {
				t.Errorf("findings: %v", got)
			}
		}()
	}
	wg.Wait()
	after, _ := json.Marshal(doc)
	if string(before) != string(after) {
		t.Fatal("Check modified the document")
	}
}

func ExampleSign() {
	doc := map[string]any{
		"envelope":         map[string]any{"source_agent": "coder"},
		"authentication":   map[string]any{"sender_persona": "coder"},
		"protocol_message": map[string]any{"message_type": "STATUS", "payload": map[string]any{}},
	}
	if err := Sign(doc, []byte("secret")); err != nil {
		panic(err)
	}
	content, _ := CanonicalContent(doc)
	fmt.Println(string(content))
	fmt.Println(len(doc["authentication"].(map[string]any)["signature"].(string)), "hex digits")
	// Output:
	// {"authentication":{"sender_persona":"coder"},"envelope":{"source_agent":"coder"},"protocol_message":{"message_type":"STATUS","payload":{}}}
	// 64 hex digits
}

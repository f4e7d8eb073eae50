package harness

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aghcheck/aghcheck/internal/sanitize"
)

// A secret comes from its flag, else its file, else its variable; flag and
// file together are refused; whatever the source, it is redacted after.
func TestCredentials(t *testing.T) {
	dir := t.TempDir()
	tokFile := filepath.Join(dir, "tok")
	if err := os.WriteFile(tokFile, []byte("tok-from-file-123\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{EnvNATSToken: "tok-from-env-456", EnvNATSPassword: "pw-from-env-789"}
	getenv := func(k string) string { return env[k] }

	ep, err := Credentials{URL: "nats://u:url-pass-000@h:4222", TokenFile: tokFile}.Endpoint(getenv)
	if err != nil || ep.Token != "tok-from-file-123" || ep.Password != "pw-from-env-789" {
		t.Fatalf("file and env: %+v, %v", ep, err)
	}
	if ep, _ := (Credentials{URL: "nats://h", Token: "tok-flag-1"}).Endpoint(getenv); ep.Token != "tok-flag-1" {
		t.Errorf("a flag does not win over the variable: %q", ep.Token)
	}
	if _, err := (Credentials{URL: "nats://h", Token: "x", TokenFile: tokFile}).Endpoint(getenv); err == nil || !strings.Contains(err.Error(), "--nats-token and --nats-token-file") {
		t.Errorf("flag and file together: %v", err)
	}
	if _, err := (Credentials{URL: "nats://h", PasswordFile: filepath.Join(dir, "none")}).Endpoint(getenv); err == nil || !strings.Contains(err.Error(), "--nats-password-file") {
		t.Errorf("missing file: %v", err)
	}
	got := sanitize.Text("tok-from-file-123 pw-from-env-789 url-pass-000 nats://u:url-pass-000@h:4222")
	if strings.Contains(got, "tok-from") || strings.Contains(got, "pw-from") || strings.Contains(got, "url-pass") {
		t.Errorf("secrets not redacted: %q", got)
	}
}

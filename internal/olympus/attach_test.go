package olympus

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/aghcheck/aghcheck/internal/rules"
)

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(s[:])
}

// envelopeWith is a valid unsigned envelope carrying the given attachments.
func envelopeWith(atts ...any) map[string]any {
	return map[string]any{
		"envelope": map[string]any{
			"version": "1.0", "message_id": "msg-3f2b8c1e-7a4d-4e9b-9c21-5d6e7f8a9b0c", "timestamp": "2026-05-25T09:30:00Z",
			"source_agent": "tech-lead", "target_agent": "coder", "correlation_id": "issue-42", "session_id": "s1",
		},
		"persona":             "governance/personas/coder.md",
		"protocol_message":    map[string]any{"message_type": "ASSIGN", "payload": map[string]any{}},
		"context_attachments": atts,
	}
}

func att(path, hash string) map[string]any {
	return map[string]any{"type": "source_file", "path": path, "hash": hash}
}

// TestAttachmentSymlinks builds a root with symlinks that stay inside and
// symlinks that escape. An escaping link names a file whose hash the
// document declares correctly: only refusing to follow it yields a finding.
func TestAttachmentSymlinks(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "repo")
	outside := filepath.Join(base, "outside")
	for _, d := range []string{root, outside, filepath.Join(root, "sub")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	inside := []byte("inside the root\n")
	secret := []byte("outside the root\n")
	must(t, os.WriteFile(filepath.Join(root, "sub", "in.txt"), inside, 0o644))
	must(t, os.WriteFile(filepath.Join(outside, "secret.txt"), secret, 0o644))
	links := map[string]string{
		"link-in":      "sub/in.txt",                         // relative, stays inside
		"link-in-abs":  filepath.Join(root, "sub", "in.txt"), // absolute target inside the root
		"link-out":     "../outside/secret.txt",              // relative escape
		"link-out-abs": filepath.Join(outside, "secret.txt"), // absolute escape
		"dir-out":      "../outside",                         // directory escape, used as dir-out/secret.txt
		"chain":        "link-out",                           // inside link to an escaping link
		"sub/up":       "..",                                 // stays inside: sub/up/sub/in.txt
		"dangling-out": "../outside/nothing-here.txt",        // escapes and does not exist
	}
	for name, target := range links {
		must(t, os.Symlink(target, filepath.Join(root, name)))
	}
	if err := syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}

	cases := []struct {
		name       string
		path, hash string
		want       *rules.Rule // nil: no finding
	}{
		{"in", "sub/in.txt", sha(inside), nil},
		{"link-in", "link-in", sha(inside), nil},
		{"link-in-abs", "link-in-abs", sha(inside), nil},
		{"dir-link-in", "sub/up/sub/in.txt", sha(inside), nil},
		{"link-out", "link-out", sha(secret), RuleAttachmentPath},
		{"link-out-abs", "link-out-abs", sha(secret), RuleAttachmentPath},
		{"dir-link-out", "dir-out/secret.txt", sha(secret), RuleAttachmentPath},
		{"chain", "chain", sha(secret), RuleAttachmentPath},
		{"dangling-out", "dangling-out", sha(secret), RuleAttachmentFile},
		{"fifo", "fifo", sha(nil), RuleAttachmentFile}, // must not block on open
		{"dot-dot", "../outside/secret.txt", sha(secret), RuleAttachmentPath},
		{"absolute", filepath.Join(outside, "secret.txt"), sha(secret), RuleAttachmentPath},
		{"wrong-hash", "sub/in.txt", sha(secret), RuleAttachmentHash},
	}
	// The root itself may be reached through a symlink.
	rootLink := filepath.Join(base, "repo-link")
	must(t, os.Symlink(root, rootLink))
	for _, rc := range []struct{ name, root string }{{"root", root}, {"root-link", rootLink}} {
		t.Run(rc.name, func(t *testing.T) {
			r := rc.root
			p, err := New(Options{AttachmentsRoot: r})
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					got := p.Check(nil, envelopeWith(att(c.path, c.hash)))
					switch {
					case c.want == nil && len(got) != 0:
						t.Errorf("root %s, path %s: want no finding, got %v", r, c.path, got)
					case c.want != nil && (len(got) != 1 || got[0].Rule != c.want):
						t.Errorf("root %s, path %s: want %s, got %v", r, c.path, c.want.ID, got)
					}
				})
			}
		})
	}
}

func TestAttachmentsNotReadWithoutRoot(t *testing.T) {
	p, err := New(Options{})
	must(t, err)
	// A wrong hash for a file that may or may not exist: without a root
	// nothing is opened, and the only finding says the hash was not checked.
	if got := p.Check(nil, envelopeWith(att("plan.md", sha([]byte("x"))))); len(got) != 1 || got[0].Rule != RuleAttachmentUnchecked {
		t.Fatalf("got %v, want OLY-ATTACHMENT-UNCHECKED alone", got)
	}
	// Path shape is judged even without a root: the seed says "relative to repo root".
	got := p.Check(nil, envelopeWith(att("../../etc/passwd", sha(nil))))
	if len(got) != 1 || got[0].Rule != RuleAttachmentPath {
		t.Fatalf("got %v", got)
	}
}

func TestPathProblem(t *testing.T) {
	for p, bad := range map[string]bool{
		"a.md": false, "docs/a.md": false, "./a": false, "a/../b": false, "a/./b/../../c": false,
		"a..b": false, "..a": false, "a/..b/c": false, "dir/": false,
		"": true, "..": true, "../a": true, "a/../..": true, "a/../../b": true, `a\..\..\b`: true,
		"/a": true, `\a`: true, "C:/a": true, "c:a": true, "a\x00b": true,
	} {
		name := p
		if name == "" {
			name = "empty"
		}
		t.Run(name, func(t *testing.T) {
			if got := pathProblem(p) != ""; got != bad {
				t.Errorf("pathProblem(%q) bad=%v, want %v", p, got, bad)
			}
		})
	}
}

func TestNewRejectsBadRoot(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	must(t, os.WriteFile(file, nil, 0o644))
	for _, tc := range []struct{ name, root string }{{"missing", filepath.Join(dir, "missing")}, {"file", file}} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := New(Options{AttachmentsRoot: tc.root}); err == nil {
				t.Errorf("New(%s): want error", tc.root)
			}
		})
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

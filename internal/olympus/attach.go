package olympus

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/aghcheck/aghcheck/internal/rules"
)

var hashPattern = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)

// pathProblem says why p does not stay inside the repository root by its
// text alone, or "" when it is a plain relative path. Both separators count:
// an envelope written on Windows must not smuggle "..\" past a Unix checker.
func pathProblem(p string) string {
	switch {
	case p == "":
		return "empty path"
	case strings.ContainsRune(p, 0):
		return "path contains a NUL byte"
	case p[0] == '/' || p[0] == '\\':
		return "absolute path"
	case len(p) >= 2 && p[1] == ':' && ('a' <= p[0]|0x20 && p[0]|0x20 <= 'z'):
		return "absolute path (drive letter)"
	}
	depth := 0
	for _, part := range strings.FieldsFunc(p, func(r rune) bool { return r == '/' || r == '\\' }) {
		switch part {
		case ".":
		case "..":
			depth--
			if depth < 0 {
				return `".." climbs out of the root`
			}
		default:
			depth++
		}
	}
	return ""
}

// attachmentFindings checks every context attachment: path shape always,
// file and hash only when an attachments root is configured.
func (p *Profile) attachmentFindings(doc map[string]any) []rules.Finding {
	atts, ok := doc["context_attachments"].([]any)
	if !ok {
		return nil
	}
	var out []rules.Finding
	unchecked := 0
	for i, a := range atts {
		att, ok := a.(map[string]any)
		if !ok {
			continue
		}
		path, ok := att["path"].(string)
		if !ok {
			continue // absent or mistyped: the schema has said so
		}
		ptr := rules.Pointer("context_attachments", fmt.Sprint(i), "path")
		if why := pathProblem(path); why != "" {
			out = append(out, rules.Finding{Rule: RuleAttachmentPath, Pointer: ptr,
				Expected: "a relative path inside the repository root", Found: quote(path), Message: why})
			continue
		}
		hash, ok := att["hash"].(string)
		if !ok || !hashPattern.MatchString(hash) {
			continue
		}
		if p.root == "" {
			unchecked++
			continue
		}
		if f, bad := p.checkFile(path, hash, i); bad {
			out = append(out, f)
		}
	}
	if unchecked > 0 {
		out = append(out, rules.Finding{Rule: RuleAttachmentUnchecked, Pointer: "/context_attachments",
			Message: fmt.Sprintf("%s not checked: no attachment directory (give --attachments-root DIR)", plural(unchecked, "attachment hash", "attachment hashes"))})
	}
	return out
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// checkFile hashes the attachment at rel under the root. Escapes are found
// before anything is opened, and the file is then opened through os.Root so
// that a symlink swapped in between still cannot lead outside.
func (p *Profile) checkFile(rel, want string, i int) (rules.Finding, bool) {
	ptr := rules.Pointer("context_attachments", fmt.Sprint(i), "path")
	fsPath := filepath.FromSlash(strings.ReplaceAll(rel, `\`, "/"))
	fail := func(r *rules.Rule, expected, found, msg string) (rules.Finding, bool) {
		return rules.Finding{Rule: r, Pointer: ptr, Expected: expected, Found: found, Message: msg}, true
	}

	resolved, err := filepath.EvalSymlinks(filepath.Join(p.root, fsPath))
	switch {
	case err == nil:
		if !within(p.realRoot, resolved) {
			return fail(RuleAttachmentPath, "a file inside the attachments root", "a symlink that resolves outside it",
				"path resolves outside --attachments-root; not read")
		}
	case errors.Is(err, fs.ErrNotExist):
		return fail(RuleAttachmentFile, "a file under the attachments root", "no such file", "")
	default:
		return fail(RuleAttachmentFile, "a readable file under the attachments root", "unresolvable path", cleanErr(err))
	}
	// Open the resolved path relative to the resolved root: os.Root refuses
	// absolute symlinks even when they point inside, and it still stops an
	// escape if a link is swapped in after EvalSymlinks looked.
	inRoot, err := filepath.Rel(p.realRoot, resolved)
	if err != nil {
		return fail(RuleAttachmentFile, "a readable file under the attachments root", "unresolvable path", cleanErr(err))
	}
	root, err := os.OpenRoot(p.realRoot)
	if err != nil {
		return fail(RuleAttachmentFile, "a readable attachments root", "unopenable root", cleanErr(err))
	}
	defer root.Close()
	st, err := root.Stat(inRoot)
	if err != nil {
		return fail(RuleAttachmentFile, "a readable file under the attachments root", "unreadable", cleanErr(err))
	}
	if !st.Mode().IsRegular() {
		// Never open FIFOs and devices: opening one can block forever.
		found := "a directory"
		if !st.IsDir() {
			found = "a special file (" + st.Mode().Type().String() + ")"
		}
		return fail(RuleAttachmentFile, "a regular file", found, "")
	}
	f, err := root.Open(inRoot)
	if err != nil {
		return fail(RuleAttachmentFile, "a readable file under the attachments root", "unreadable", cleanErr(err))
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return fail(RuleAttachmentFile, "a readable file under the attachments root", "read error", cleanErr(err))
	}
	got := "sha256:" + hex.EncodeToString(h.Sum(nil))
	if got != want {
		return rules.Finding{Rule: RuleAttachmentHash, Pointer: rules.Pointer("context_attachments", fmt.Sprint(i), "hash"),
			Expected: got, Found: want, Message: "the file at " + quote(rel) + " has a different SHA-256"}, true
	}
	return rules.Finding{}, false
}

// within reports whether path is root or below it (both already resolved).
func within(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// cleanErr keeps the reason of an fs error without the absolute path, which
// would make findings differ from machine to machine.
func cleanErr(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err.Error()
	}
	return err.Error()
}

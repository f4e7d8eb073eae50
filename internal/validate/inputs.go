package validate

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"
)

// DefaultPipeWait is how long a named pipe given as a path may go without
// a writer before validate gives up on it.
const DefaultPipeWait = 10 * time.Second

// Input is one file (or standard input) to read documents from.
type Input struct {
	Path  string
	Stdin bool
	Lines bool // NDJSON by extension: every line is a document
}

// Name is how reports refer to the input.
func (in Input) Name() string {
	if in.Stdin {
		return "<stdin>"
	}
	return in.Path
}

// isDocFile reports whether a file found under a directory is read.
func isDocFile(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".json", ".ndjson", ".jsonl":
		return true
	}
	return false
}

func isLinesFile(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".ndjson", ".jsonl":
		return true
	}
	return false
}

// Expand turns command-line arguments into inputs: "-" is standard input,
// a directory is searched recursively for *.json, *.ndjson and *.jsonl, an
// argument with glob characters that names no file is expanded as a glob.
// ErrNoInput is Expand's error when no input is given at all.
var ErrNoInput = errors.New("no input: give a file, a directory, a glob or - for standard input")

// Every argument must yield at least one input: the error names, one line
// each, every argument that does not, and the inputs of the others are
// still returned, so that one missing path does not hide the results of
// the rest. No argument at all, or - twice, returns no input.
func Expand(args []string) ([]Input, error) {
	if len(args) == 0 {
		return nil, ErrNoInput
	}
	var out []Input
	var errs []error
	seen := map[string]bool{}
	stdin := false
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			out = append(out, Input{Path: p, Lines: isLinesFile(p)})
		}
	}
	for _, a := range args {
		if a == "-" {
			if stdin {
				return nil, errors.New("standard input (-) given more than once")
			}
			stdin = true
			out = append(out, Input{Stdin: true})
			continue
		}
		if err := expandArg(a, add, func() int { return len(out) }); err != nil {
			errs = append(errs, err)
		}
	}
	return out, errors.Join(errs...)
}

// expandArg adds the inputs one argument names; count is how many inputs
// there are so far.
func expandArg(a string, add func(string), count func() int) error {
	paths := []string{a}
	if _, err := os.Stat(a); err != nil && strings.ContainsAny(a, "*?[") {
		m, gerr := filepath.Glob(a)
		if gerr != nil {
			return fmt.Errorf("bad glob %q: %w", a, gerr)
		}
		if len(m) == 0 {
			return fmt.Errorf("%s: the pattern matches no file", a)
		}
		paths = m
	}
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return oneLine(err)
		}
		if !st.IsDir() {
			add(p)
			continue
		}
		n := count()
		if err := walkDir(p, add); err != nil {
			return err
		}
		if count() == n {
			return fmt.Errorf("%s: no *.json, *.ndjson or *.jsonl file in this directory", p)
		}
	}
	return nil
}

// openInput opens a named input. Opening a named pipe (FIFO) blocks until
// something opens it for writing; rather than hang forever on one nothing
// writes to, wait at most wait and say why. A FIFO with a writer (say, a
// shell's <(command)) is read like any file. Directories skip FIFOs.
func openInput(ctx context.Context, path string, wait time.Duration) (*os.File, error) {
	st, err := os.Stat(path)
	if err != nil || st.Mode()&fs.ModeNamedPipe == 0 {
		return os.Open(path)
	}
	type opened struct {
		f   *os.File
		err error
	}
	ch := make(chan opened, 1)
	go func() {
		f, err := os.Open(path)
		ch <- opened{f, err}
	}()
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case o := <-ch:
		return o.f, o.err
	case <-t.C:
	case <-ctx.Done():
	}
	// Release the blocked open: a writer that comes and goes at once (it
	// fails until the open above has started, so retry until it returns).
	for {
		if w, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
		select {
		case o := <-ch:
			if o.f != nil {
				o.f.Close()
			}
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, fmt.Errorf("%s: a named pipe (FIFO) that nothing wrote to for %s; start its writer first, or give - to read standard input", path, wait)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

func walkDir(root string, add func(string)) error {
	var found []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return oneLine(err)
		}
		if !d.IsDir() && isDocFile(d.Name()) && d.Type().IsRegular() {
			found = append(found, p)
		}
		return nil
	})
	sort.Strings(found)
	for _, p := range found {
		add(p)
	}
	return err
}

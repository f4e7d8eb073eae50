package validate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aghcheck/aghcheck/internal/jsonx"
	"github.com/aghcheck/aghcheck/internal/rules"
)

// TrustChecker is implemented by profiles that also assign a trust state
// (verified, unverified, rejected) to a document.
type TrustChecker interface {
	Profile
	CheckTrust(raw []byte, v any) (findings []rules.Finding, trust string)
}

// Cleaner is implemented by profiles that can settle a clean document from
// its bytes alone, before anything is decoded: the common case, at a
// fraction of the cost.
type Cleaner interface {
	Profile
	// CheckClean reports whether raw is a document Detect accepts and Check
	// (CheckTrust) finds nothing in; trust is then the state CheckTrust
	// would give. false means only that the full check has to decide.
	CheckClean(raw []byte) (trust string, ok bool)
}

// Document is the result for one document of one input.
type Document struct {
	Source   string // file path as given (or found under a directory); "<stdin>" for -
	Line     int    // line the document starts on (1-based)
	Index    int    // index in a top-level array, -1 when the input is not an array
	Profile  string // profile that checked it; "" when none could
	Trust    string // trust state when the profile evaluates one
	Valid    bool   // no finding has error severity (under the run's strictness)
	Findings []rules.Finding
	// At is where each finding's pointer is in the input as written (its
	// value, or the closest enclosing one when the value is missing), for
	// annotations on the right line of a pretty-printed file; one entry per
	// finding, or nil when there is no finding.
	At []Position
}

// CleanCopy is the copy the sanitiser makes of d (sanitize.SelfCopier),
// written out: a writer is handed every document of the input, and walking
// each one with reflect cost a third of the whole check of a clean
// envelope. text makes one string safe. A document without findings whose
// strings text leaves as they are is returned itself: writers only read an
// item, and keep nothing of it past Item (Run reuses it after emit, as it
// always has). The findings' rules are shared:
// the catalogue is aghcheck's own text, which writers keep and compare by
// identity. TestCleanCopyIsReflective fills every field and holds this to
// sanitize.Reflective.
func (d *Document) CleanCopy(text func(string) string) *Document {
	if d == nil {
		return nil
	}
	src, profile, trust := text(d.Source), text(d.Profile), text(d.Trust)
	if d.Findings == nil && d.At == nil && src == d.Source && profile == d.Profile && trust == d.Trust {
		return d // nothing to change (a clean document): writers only read it
	}
	c := *d
	c.Source, c.Profile, c.Trust = src, profile, trust
	if d.Findings != nil {
		c.Findings = make([]rules.Finding, len(d.Findings))
		for i, f := range d.Findings {
			f.Pointer, f.Expected, f.Found = text(f.Pointer), text(f.Expected), text(f.Found)
			f.Message, f.Reason = text(f.Message), text(f.Reason)
			c.Findings[i] = f
		}
	}
	if d.At != nil {
		c.At = slices.Clone(d.At)
	}
	return &c
}

// Position is a line and a column (1-based; columns in UTF-16 code units).
type Position struct{ Line, Column int }

// InputError is an input that could not be read: a missing file, a pattern
// matching nothing, a read error. Source is the path or pattern as given
// ("" when the error names none).
type InputError struct{ Source, Message string }

// Summary counts a whole run.
type Summary struct {
	Documents, Valid, Invalid, Errors, Warnings int
	Files                                       int
	// InputErrors are the inputs that could not be read: the check is not
	// complete, whatever the documents said.
	InputErrors []InputError
}

// InputErrors splits err, the input errors Expand and Run return (joined),
// into one InputError per line, each with the source its line names.
func InputErrors(err error) []InputError {
	if err == nil {
		return nil
	}
	var out []InputError
	for _, line := range strings.Split(err.Error(), "\n") {
		if line == "" {
			continue
		}
		src, msg, ok := strings.Cut(line, ": ")
		if !ok || strings.ContainsAny(src, " \"") && !fileExists(src) {
			src, msg = "", line
		}
		out = append(out, InputError{Source: src, Message: msg})
	}
	return out
}

// fileExists tells a source named with a space from the words of a message.
func fileExists(p string) bool { _, err := os.Lstat(p); return err == nil }

// Options configure a Validator.
type Options struct {
	// Profiles are tried in order with Detect.
	Profiles []Profile
	// Force names the one profile to apply to every document (--profile).
	Force string
	// Strict makes every finding an error.
	Strict bool
	// Workers is the number of checking goroutines (default GOMAXPROCS).
	Workers int
	// Stdin is read for the input "-" (default os.Stdin).
	Stdin io.Reader
	// BytesRead, when set, counts every byte read from the inputs (a
	// progress line reads it while the run goes on).
	BytesRead *atomic.Int64
	// PipeWait bounds how long a named pipe given as a path may wait for a
	// writer (default DefaultPipeWait).
	PipeWait time.Duration
	// OneMessage reads every input as exactly one message, as a receiver
	// gets a NATS payload, instead of as a batch of documents (one, an
	// array of them, NDJSON or concatenated values): a top-level array is
	// then INPUT-NOT-OBJECT and a second value INPUT-JSON-SYNTAX.
	OneMessage bool
	// Idle, when set, is called whenever Run has emitted every document
	// read so far and waits for more: a writer flushes its output there, so
	// that a document from a live stream is reported as soon as it is
	// complete, not when a buffer fills.
	Idle func()
}

// Validator runs profiles over inputs; build one per run.
type Validator struct {
	opts   Options
	forced Profile
	clean  Cleaner // the profile that settles clean documents first, if any
}

// New checks the options.
func New(opts Options) (*Validator, error) {
	v := &Validator{opts: opts}
	if opts.Force != "" {
		for _, p := range opts.Profiles {
			if p.Name() == opts.Force {
				v.forced = p
			}
		}
		if v.forced == nil {
			return nil, fmt.Errorf("unknown profile %q (known: %s)", opts.Force, strings.Join(v.ProfileNames(), ", "))
		}
	}
	if len(opts.Profiles) == 0 {
		return nil, errors.New("no profiles to validate with")
	}
	// A Cleaner can only go first when it is the profile a document would
	// get anyway: forced, or first in detection order.
	first := v.forced
	if first == nil {
		first = opts.Profiles[0]
	}
	v.clean, _ = first.(Cleaner)
	if v.opts.Workers <= 0 {
		v.opts.Workers = runtime.GOMAXPROCS(0)
	}
	if v.opts.Stdin == nil {
		v.opts.Stdin = os.Stdin
	}
	if v.opts.PipeWait <= 0 {
		v.opts.PipeWait = DefaultPipeWait
	}
	return v, nil
}

// ProfileNames lists the profiles in detection order.
func (v *Validator) ProfileNames() []string {
	var ns []string
	for _, p := range v.opts.Profiles {
		ns = append(ns, p.Name())
	}
	return ns
}

// CheckDocument decodes and checks one document's bytes; line is where it
// starts in its input (for messages).
func (v *Validator) CheckDocument(raw []byte, line int) Document {
	return v.checkAt(raw, line, 1, 0)
}

// checkAt is CheckDocument for a document that starts at column col and
// byte offset off of its input.
func (v *Validator) checkAt(raw []byte, line, col, off int) Document {
	d := Document{Line: line, Index: -1}
	if v.clean != nil {
		if trust, ok := v.clean.CheckClean(raw); ok {
			d.Profile, d.Valid = v.clean.Name(), true
			if _, ok := v.clean.(TrustChecker); ok {
				d.Trust = trust
			}
			return d
		}
	}
	val, fs, ok := jsonx.DecodeAt(raw, line, col, off)
	d.Findings = fs
	if ok {
		obj, isObj := val.(map[string]any)
		p := v.forced
		if !isObj {
			d.Findings = append(d.Findings, rules.New(rules.InputNotObject, "", "object", jsonx.TypeName(val)))
		} else {
			if p == nil {
				for _, q := range v.opts.Profiles {
					if q.Detect(obj) {
						p = q
						break
					}
				}
			}
			if p == nil {
				d.Findings = append(d.Findings, rules.Finding{Rule: rules.InputUnknownFormat,
					Expected: "a document of a known format (" + strings.Join(v.ProfileNames(), ", ") + ")",
					Found:    "an object no profile recognises",
					Message:  "cannot tell the format of this document; force one with --profile " + strings.Join(v.ProfileNames(), "|")})
			}
		}
		if p != nil {
			d.Profile = p.Name()
			if isObj {
				if tc, ok := p.(TrustChecker); ok {
					pf, trust := tc.CheckTrust(raw, val)
					d.Findings = append(d.Findings, pf...)
					d.Trust = trust
				} else {
					d.Findings = append(d.Findings, p.Check(raw, val)...)
				}
			}
		}
	}
	d.Valid = !rules.HasErrors(d.Findings, v.opts.Strict)
	return d
}

// batch is a run of consecutive documents checked by one worker; batching
// keeps channel traffic low and the output order cheap to restore.
type batch struct {
	source string
	docs   []rawDoc
	buf    []byte
	out    []Document
	done   chan struct{}
}

const (
	batchDocs  = 128
	batchBytes = 256 << 10
)

var batchPool = sync.Pool{New: func() any {
	return &batch{buf: make([]byte, 0, batchBytes), docs: make([]rawDoc, 0, batchDocs)}
}}

// Run validates every input in order and calls emit for each document, in
// input order. The Document emit gets is reused once emit returns: copy
// what must outlive the call. Run returns the summary and, joined, every
// input error (a missing file, an empty input, a read error): each one line
// for people.
// Checking goes on past input errors so that one bad path does not hide the
// results of the others. An error returned by emit stops the run.
//
// When ctx is done (an interrupt), Run emits the documents already read,
// returns the summary of those with ctx's error, and does not wait for a
// read in progress: reading standard input cannot be interrupted, so that
// read ends on its own, when its input does.
func (v *Validator) Run(ctx context.Context, inputs []Input, emit func(*Document) error) (Summary, error) {
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var sum Summary
	work := make(chan *batch, v.opts.Workers)
	order := make(chan *batch, 2*v.opts.Workers+2)
	var inputErrs []error
	var wg sync.WaitGroup
	for range v.opts.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range work {
				v.checkBatch(b)
				close(b.done)
			}
		}()
	}
	go func() {
		defer close(order)
		defer close(work)
		for _, in := range inputs {
			if ctx.Err() != nil {
				return
			}
			if err := v.splitInput(ctx, in, work, order); err != nil {
				inputErrs = append(inputErrs, err)
			}
		}
	}()
	var emitErr error
	for {
		b, ok := v.next(parent, order)
		if !ok {
			break
		}
		<-b.done
		if emitErr == nil {
			for i := range b.out {
				d := &b.out[i]
				sum.add(d, v.opts.Strict)
				if err := emit(d); err != nil {
					emitErr = err
					cancel()
					break
				}
			}
		}
		b.release()
	}
	sum.Files = len(inputs)
	if err := parent.Err(); err != nil {
		return sum, err
	}
	wg.Wait()
	if emitErr != nil {
		return sum, emitErr
	}
	return sum, errors.Join(inputErrs...)
}

// next is the next batch to emit, in input order; false when there is
// none. When none is ready it calls Idle before waiting. Once ctx is done
// it hands out only the batches already queued.
func (v *Validator) next(ctx context.Context, order chan *batch) (*batch, bool) {
	select {
	case b, ok := <-order:
		return b, ok
	default:
	}
	if ctx.Err() == nil {
		if v.opts.Idle != nil {
			v.opts.Idle()
		}
		select {
		case b, ok := <-order:
			return b, ok
		case <-ctx.Done():
		}
	}
	select {
	case b, ok := <-order:
		return b, ok
	default:
		return nil, false
	}
}

func (s *Summary) add(d *Document, strict bool) {
	s.Documents++
	if d.Valid {
		s.Valid++
	} else {
		s.Invalid++
	}
	for _, f := range d.Findings {
		if f.Severity(strict) == rules.Error {
			s.Errors++
		} else {
			s.Warnings++
		}
	}
}

func (b *batch) release() {
	clear(b.out) // the findings go with the documents, the array stays
	b.docs, b.buf, b.out, b.done = b.docs[:0], b.buf[:0], b.out[:0], nil
	if cap(b.buf) > 4*batchBytes {
		b.buf = make([]byte, 0, batchBytes)
	}
	batchPool.Put(b)
}

func (v *Validator) checkBatch(b *batch) {
	b.out = slices.Grow(b.out[:0], len(b.docs))[:len(b.docs)]
	for i, rd := range b.docs {
		var d Document
		if rd.fail != nil {
			d = Document{Findings: []rules.Finding{*rd.fail}}
			d.Valid = !rules.HasErrors(d.Findings, v.opts.Strict)
		} else {
			d = v.checkAt(rd.raw, rd.line, rd.col, rd.off)
			if len(d.Findings) > 0 {
				d.At = make([]Position, len(d.Findings))
				for k, f := range d.Findings {
					line, col := jsonx.Position(rd.raw, jsonx.Locate(rd.raw, f.Pointer), rd.line, rd.col)
					d.At[k] = Position{line, col}
				}
			}
		}
		d.Source, d.Line, d.Index = b.source, rd.line, rd.index
		b.out[i] = d
	}
}

// splitInput reads one input and queues its documents in batches.
func (v *Validator) splitInput(ctx context.Context, in Input, work, order chan *batch) error {
	var r io.Reader
	if in.Stdin {
		r = v.opts.Stdin
	} else {
		f, err := openInput(ctx, in.Path, v.opts.PipeWait)
		if err != nil {
			return oneLine(err)
		}
		defer f.Close()
		r = f
	}
	var cur *batch
	flush := func() bool {
		b := cur
		cur = nil
		if b == nil || len(b.docs) == 0 {
			if b != nil {
				b.release()
			}
			return ctx.Err() == nil
		}
		b.done = make(chan struct{})
		select {
		case order <- b:
		case <-ctx.Done():
			b.release()
			return false
		}
		select {
		case work <- b:
			return true
		case <-ctx.Done():
			// The emitter already holds b and waits on done.
			close(b.done)
			return false
		}
	}
	if v.opts.BytesRead != nil {
		r = countingReader{r, v.opts.BytesRead}
	}
	sp := newSplitter(r, func(d rawDoc) bool {
		if cur == nil {
			cur = batchPool.Get().(*batch)
			cur.source = in.Name()
		}
		if d.raw != nil {
			if len(cur.buf)+len(d.raw) > cap(cur.buf) && len(cur.docs) > 0 {
				if !flush() {
					return false
				}
				cur = batchPool.Get().(*batch)
				cur.source = in.Name()
			}
			off := len(cur.buf)
			cur.buf = append(cur.buf, d.raw...)
			d.raw = cur.buf[off:len(cur.buf):len(cur.buf)]
		}
		cur.docs = append(cur.docs, d)
		if len(cur.docs) >= batchDocs || len(cur.buf) >= batchBytes {
			return flush()
		}
		return true
	}, flush)
	sp.whole = v.opts.OneMessage
	err := sp.run(in.Lines)
	flush()
	if err != nil {
		return fmt.Errorf("%s: %w", in.Name(), oneLine(err))
	}
	if sp.docs == 0 && ctx.Err() == nil {
		return fmt.Errorf("%s: empty input: no JSON document found", in.Name())
	}
	return nil
}

// oneLine strips the "open"/"read" noise from path errors but keeps the cause.
func oneLine(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", pe.Path, pe.Err)
	}
	return err
}

// countingReader adds what it reads to n.
type countingReader struct {
	r io.Reader
	n *atomic.Int64
}

func (c countingReader) Read(p []byte) (int, error) {
	k, err := c.r.Read(p)
	c.n.Add(int64(k))
	return k, err
}

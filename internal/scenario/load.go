package scenario

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/aghcheck/aghcheck/internal/catalogue"
	"github.com/aghcheck/aghcheck/internal/jsonx"
	"github.com/aghcheck/aghcheck/schemas"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"gopkg.in/yaml.v3"
)

// SchemaName is the scenario format's JSON Schema in package schemas.
const SchemaName = "scenario.schema.json"

// Problem is one thing wrong with a scenario file.
type Problem struct {
	File     string
	Line     int    // 1-based; 0 when the problem has no place in the file
	Column   int    // 1-based; 0 when only the line is known
	Scenario string // "" for file-level problems
	Message  string
}

func (p Problem) String() string {
	where := p.File
	if p.Line > 0 {
		where += ":" + strconv.Itoa(p.Line)
		if p.Column > 0 {
			where += ":" + strconv.Itoa(p.Column)
		}
	}
	if p.Scenario != "" {
		return fmt.Sprintf("%s: scenario %s: %s", where, p.Scenario, p.Message)
	}
	return fmt.Sprintf("%s: %s", where, p.Message)
}

// Set is a loaded collection of scenarios and whatever was wrong on the way.
type Set struct {
	Scenarios []*Scenario
	Problems  []Problem
	Files     int // scenario files read
}

// Err joins the problems into one error (nil when there are none).
func (s *Set) Err() error {
	if len(s.Problems) == 0 {
		return nil
	}
	msgs := make([]string, len(s.Problems))
	for i, p := range s.Problems {
		msgs[i] = p.String()
	}
	if len(msgs) == 1 {
		return errors.New(msgs[0])
	}
	return fmt.Errorf("%d problems in scenario files:\n  %s", len(msgs), strings.Join(msgs, "\n  "))
}

// LoadFS reads every *.yaml, *.yml and *.json file under root in fsys;
// label prefixes file names in problems and results (e.g. "embedded:").
func LoadFS(fsys fs.FS, root, label string) Set {
	var set Set
	err := fs.WalkDir(fsys, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		ext := path.Ext(p)
		if d.IsDir() || (ext != ".yaml" && ext != ".yml" && ext != ".json") {
			return nil
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(p, root), "/")
		suite := path.Dir(rel)
		if suite == "." {
			suite = strings.TrimSuffix(path.Base(rel), ext)
		}
		set.Files++
		scs, probs := parse(label+rel, data, suite, func(name string) ([]byte, error) {
			return fs.ReadFile(fsys, path.Join(root, name))
		})
		set.Scenarios = append(set.Scenarios, scs...)
		set.Problems = append(set.Problems, probs...)
		return nil
	})
	if err != nil {
		set.Problems = append(set.Problems, Problem{File: label + root, Message: err.Error()})
	}
	set.Problems = append(set.Problems, unique(set.Scenarios)...)
	return set
}

// Merge appends other to s and re-checks id uniqueness across both.
func (s *Set) Merge(other Set) {
	s.Files += other.Files
	s.Scenarios = append(s.Scenarios, other.Scenarios...)
	s.Problems = append(s.Problems, other.Problems...)
	seen := map[string]bool{}
	for _, p := range s.Problems {
		seen[p.String()] = true
	}
	for _, p := range unique(s.Scenarios) {
		if !seen[p.String()] {
			s.Problems = append(s.Problems, p)
		}
	}
}

func unique(scs []*Scenario) []Problem {
	var out []Problem
	first := map[string]*Scenario{}
	for _, sc := range scs {
		if prev, dup := first[sc.ID]; dup {
			out = append(out, Problem{File: sc.File, Line: sc.Line, Column: sc.Column, Scenario: sc.ID, Message: fmt.Sprintf("id already used in %s:%d", prev.File, prev.Line)})
			continue
		}
		first[sc.ID] = sc
	}
	return out
}

var (
	schemaOnce sync.Once
	schema     *jsonschema.Schema
	schemaDoc  any // the raw schema, for the names of an object's keys
	schemaErr  error
)

func compiled() (*jsonschema.Schema, error) {
	schemaOnce.Do(func() {
		b, err := schemas.Read(SchemaName)
		if err != nil {
			schemaErr = err
			return
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			schemaErr = fmt.Errorf("scenario schema: %w", err)
			return
		}
		schemaDoc = doc
		c := jsonschema.NewCompiler()
		const url = "https://aghcheck.dev/schemas/scenario.schema.json"
		if err := c.AddResource(url, doc); err != nil {
			schemaErr = err
			return
		}
		schema, schemaErr = c.Compile(url)
	})
	return schema, schemaErr
}

// Parse decodes one scenario file (YAML or JSON) and checks it against the
// JSON Schema and the rules the schema cannot express. A family file that
// names a template needs the suite tree it was read from: load it with
// LoadFS.
func Parse(name string, data []byte, suite string) ([]*Scenario, []Problem) {
	return parse(name, data, suite, nil)
}

// readTemplate reads a family template by its path from the root of the
// suite tree (nil: there is no tree to read from).
type readTemplate func(name string) ([]byte, error)

func parse(name string, data []byte, suite string, read readTemplate) ([]*Scenario, []Problem) {
	takePrimed()
	key := fileKey(name, suite, data)
	if v, ok := parsed.Load(key); ok {
		return copies(v.([]*Scenario)), nil
	}
	scs, probs, plain := parseDoc(name, data, suite, read)
	if plain && len(probs) == 0 {
		// Only a plain file is remembered by its bytes alone: a family's
		// scenarios depend on its template too (expanded remembers those).
		v, _ := parsed.LoadOrStore(key, scs)
		return copies(v.([]*Scenario)), nil
	}
	return scs, probs
}

// parseDoc is parse without the memo; plain is whether the file is a
// list of scenarios (not a family, not a template).
func parseDoc(name string, data []byte, suite string, read readTemplate) ([]*Scenario, []Problem, bool) {
	fail := func(msg string) ([]*Scenario, []Problem, bool) {
		return nil, []Problem{{File: name, Message: msg}}, false
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, []Problem{syntaxProblem(name, err)}, false
	}
	var doc any
	if err := root.Decode(&doc); err != nil {
		return nil, []Problem{syntaxProblem(name, err)}, false
	}
	js, err := json.Marshal(jsonx.FromYAML(doc))
	if err != nil {
		return fail("not representable as JSON: " + err.Error())
	}
	if isTemplate(doc) {
		return nil, checkTemplate(name, js, &root), false
	}
	if isFamily(doc) {
		scs, probs := parseFamily(name, js, suite, &root, read)
		return scs, probs, false
	}
	scs, probs := parseJSON(name, js, suite, &root, doc)
	return scs, probs, true
}

// parseJSON checks a scenario file, as JSON, against the schema and the
// rules the schema cannot express.
// root (nil for generated files) places problems in the source.
func parseJSON(name string, js []byte, suite string, root *yaml.Node, doc any) ([]*Scenario, []Problem) {
	fail := func(msg string) ([]*Scenario, []Problem) {
		return nil, []Problem{{File: name, Message: msg}}
	}
	sch, err := compiled()
	if err != nil {
		return fail(err.Error())
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(js))
	if err != nil {
		return fail(err.Error())
	}
	if err := sch.Validate(inst); err != nil {
		return nil, schemaProblems(name, root, scenarioIDs(doc), err)
	}
	var f File
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.UseNumber()
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return fail(err.Error())
	}
	if f.Suite != "" {
		suite = f.Suite
	}
	var probs []Problem
	for i, sc := range f.Scenarios {
		sc.Suite, sc.File = suite, name
		base := []string{"scenarios", strconv.Itoa(i)}
		n, _ := nodeAt(root, base)
		if n != nil {
			sc.Line, sc.Column = n.Line, n.Column
		}
		own := map[issue]bool{}
		for _, is := range sc.check() {
			own[is] = true
			n, _ := nodeAt(root, append(base, pointer(is.at)...))
			probs = append(probs, Problem{File: name, Scenario: sc.ID, Message: is.msg}.at(n))
		}
		// Each form under another reading is a scenario of its own to
		// check; its problems point into the form.
		for _, reading := range sortedForms(sc.Readings) {
			at := append(slices.Clone(base), "readings", reading)
			for _, is := range sc.under(reading).check() {
				if own[is] || !formPointer(is.at) {
					continue // about what the form keeps of the scenario: reported above
				}
				n, _ := nodeAt(root, append(at, pointer(is.at)...))
				probs = append(probs, Problem{File: name, Scenario: sc.ID, Message: "under reading " + reading + ": " + is.msg}.at(n))
			}
		}
	}
	return f.Scenarios, probs
}

// scenarioIDs maps the index of each scenario in a decoded file to its id.
func scenarioIDs(doc any) map[string]string {
	ids := map[string]string{}
	m, _ := doc.(map[string]any)
	list, _ := m["scenarios"].([]any)
	for i, sc := range list {
		if sm, ok := sc.(map[string]any); ok {
			if id, ok := sm["id"].(string); ok {
				ids[strconv.Itoa(i)] = id
			}
		}
	}
	return ids
}

// PeerNames is the scenario's test peers, defaulting to one called tester.
func (sc *Scenario) PeerNames() []Peer {
	if len(sc.Peers) == 0 {
		return []Peer{{Name: "tester"}}
	}
	return sc.Peers
}

// issue is one problem check found, at a JSON pointer into its scenario.
type issue struct{ at, msg string }

// check finds what the schema cannot: unknown requirement ids, undeclared
// peers, templates that cannot evaluate, captures used before they exist.
func (sc *Scenario) check() []issue {
	c := &checker{sc: sc, peers: map[string]*TestPeer{}}
	for j, id := range sc.Requirements {
		if _, ok := catalogue.Lookup(id); !ok {
			c.at = "/requirements/" + strconv.Itoa(j)
			c.bad("requirement %s is not a registered rule id (see `aghcheck rules`)", id)
		}
	}
	for k, p := range sc.PeerNames() {
		c.at = "/peers/" + strconv.Itoa(k)
		if !PeerName(p.Name) {
			c.bad("bad test peer name %q", p.Name)
		}
		if _, dup := c.peers[p.Name]; dup {
			c.bad("test peer %q declared twice", p.Name)
		}
		tp := &TestPeer{Name: p.Name, ID: p.Name + ".x"}
		if p.Key {
			tp.Key = make([]byte, 64)
		}
		c.peers[p.Name] = tp
	}
	c.ctx = &Context{Workspace: "ws", Channel: "ch", IUT: "iut.x", Tag: "t", Peers: c.peers, Captures: map[string]any{}, Dry: true}
	c.real = *c.ctx
	c.real.Dry = false
	for i, st := range sc.Steps {
		c.at = "/steps/" + strconv.Itoa(i)
		switch {
		case st.Send != nil || st.AtOnce != nil:
			if st.AtOnce != nil && len(st.AtOnce) == 0 {
				c.bad("step %d: at_once lists no send", i+1)
			}
			for _, s := range st.Published() {
				c.send(i, s)
			}
		case st.Initiate != nil:
			for _, e := range sc.checkInitiate(i, c.peers) {
				c.bad("%s", e)
			}
		case st.Expect != nil:
			c.expect(i, st.Expect)
		case st.ExpectSilence != nil:
			c.where(i, st.ExpectSilence.On, true)
			c.patterns(i, st.ExpectSilence.Patterns())
		}
	}
	return append(c.out, sc.checkLevels()...)
}

// checker is one scenario's check in progress: the problems so far, the
// place in the file being checked, and a sample binding every template is
// rendered with, as a run renders it.
type checker struct {
	sc    *Scenario
	out   []issue
	at    string // what is being checked: the problems' place in the file
	peers map[string]*TestPeer
	ctx   *Context
	// real renders as a run does, derivations too (a route token is part
	// of a subject): where a send publishes must be one of the run's
	// subjects.
	real Context
}

func (c *checker) bad(format string, a ...any) {
	c.out = append(c.out, issue{c.at, fmt.Sprintf(format, a...)})
}

// where checks an on: a test peer, broadcast, subject:… or (allowAny) any.
func (c *checker) where(i int, w string, allowAny bool) {
	switch {
	case w == "" || w == "broadcast" || strings.HasPrefix(w, "subject:"):
	case w == "any" && allowAny:
	default:
		if _, ok := c.peers[w]; !ok {
			c.bad("step %d: %q is not a test peer, broadcast or subject:…", i+1, w)
		}
	}
}

// tmpl renders v with the sample binding: what fails here (an unclosed
// {{, an unknown name) would fail the run.
func (c *checker) tmpl(i int, v any) {
	if _, err := c.ctx.Render(v); err != nil {
		c.bad("step %d: %v", i+1, err)
	}
}

// confined checks that a send publishes, and asks replies, only on the
// run's subjects; what a capture holds is the IUT's, and makes none.
func (c *checker) confined(i int, subject, reply string) {
	if subject != "" {
		if got, err := c.real.RenderString(subject); err == nil && !Confined(got, c.real.Workspace, c.real.Channel) {
			c.bad("step %d: send: %v", i+1, ErrUnconfined("subject", subject))
		}
	}
	if reply != "" {
		if got, err := c.real.RenderString(reply); err != nil {
			c.bad("step %d: reply: %v", i+1, err)
		} else if !ReplyConfined(got, c.real.Workspace, c.real.Channel) {
			c.bad("step %d: send: %v", i+1, ErrUnconfined("reply subject", reply))
		}
	}
}

func (c *checker) patterns(i int, ps []map[string]any) {
	for _, p := range ps {
		c.tmpl(i, p)
		checkOps(p, func(msg string) { c.bad("step %d: %s", i+1, msg) })
	}
}

// send checks one send (of a send step or an at_once list).
func (c *checker) send(i int, s *Send) {
	if s.From != "" {
		if _, ok := c.peers[s.From]; !ok {
			c.bad("step %d: send from undeclared peer %q", i+1, s.From)
		}
	}
	from := s.From
	if from == "" {
		from = c.sc.PeerNames()[0].Name
	}
	if s.Sign && c.peers[from] != nil && c.peers[from].Key == nil {
		c.bad("step %d: sign needs a peer declared with key: true", i+1)
	}
	if s.To != "" && s.To != "iut" && s.To != "broadcast" && c.peers[s.To] == nil {
		c.bad("step %d: send to %q: want iut, broadcast or a test peer", i+1, s.To)
	}
	if s.RawBase64 != "" {
		if _, err := base64.StdEncoding.DecodeString(s.RawBase64); err != nil {
			c.bad("step %d: raw_base64: %v", i+1, err)
		}
	}
	if s.Raw != nil {
		c.tmpl(i, *s.Raw)
	}
	c.tmpl(i, s.Envelope)
	c.tmpl(i, s.Tamper)
	c.tmpl(i, s.Subject)
	c.confined(i, s.Subject, s.Reply)
	if s.JetStream && !c.sc.Requires.JetStream {
		c.bad("step %d: a jetstream send needs requires.jetstream", i+1)
	}
	if s.Copies > 0 && s.Repeat > 0 {
		c.bad("step %d: copies (at once) and repeat (one after another) cannot both be given", i+1)
	}
}

// expect checks an expect step, and makes its captures known to the steps
// after it.
func (c *checker) expect(i int, e *Expect) {
	c.where(i, e.On, true)
	c.patterns(i, e.Patterns())
	if u := e.Unobservable; u != nil {
		c.patterns(i, u.AnyOf)
	}
	if b := e.Before; b != 0 && (b > i || c.sc.Steps[b-1].Expect == nil) {
		c.bad("step %d: before: %d names no earlier expect step", i+1, b)
	}
	if e.NeedsEnd != "" {
		switch {
		case e.Before != 0:
			c.bad("step %d: needs_end waits for the work, before judges order without waiting: give one of them", i+1)
		case e.Work() == "":
			c.bad("step %d: needs_end: every pattern must name the work_id of the work it waits on, the same in each", i+1)
		}
	}
	names := make([]string, 0, len(e.Capture))
	for name := range e.Capture {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		c.ctx.Captures[name] = "x"
	}
}

func checkOps(v any, bad func(string)) {
	switch t := v.(type) {
	case map[string]any:
		for k, val := range t {
			if strings.HasPrefix(k, "$") {
				known := false
				for _, op := range Operators {
					known = known || op == k
				}
				switch {
				case !known:
					bad("unknown match operator " + k)
				case len(t) != 1:
					bad("operator " + k + " must be the only member of its object")
				case k == "$regex":
					if _, err := regexp.Compile(fmt.Sprint(val)); err != nil {
						bad("bad $regex: " + err.Error())
					}
				case k == "$in":
					if _, ok := val.([]any); !ok {
						bad("$in needs a list")
					}
				}
			}
			checkOps(val, bad)
		}
	case []any:
		for _, val := range t {
			checkOps(val, bad)
		}
	}
}

// sortedForms are the names of a scenario's readings, sorted.
func sortedForms(m map[string]*Form) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// formPointer reports whether an issue's pointer (into a scenario) is in
// what a form gives: its steps, requirements or level, or the scenario as
// a whole.
func formPointer(at string) bool {
	return at == "" || strings.HasPrefix(at, "/steps") || strings.HasPrefix(at, "/requirements") || strings.HasPrefix(at, "/level")
}

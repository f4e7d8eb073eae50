package fuzz

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aghcheck/aghcheck/internal/agh"
	"github.com/aghcheck/aghcheck/internal/catalogue"
	"github.com/aghcheck/aghcheck/internal/jsonx"
	"github.com/aghcheck/aghcheck/internal/requirements"
	"github.com/aghcheck/aghcheck/internal/rules"
	"github.com/aghcheck/aghcheck/internal/scenario"
	"github.com/aghcheck/aghcheck/internal/trust"
)

// The oracle. The rule engine judges each mutant as the harness will
// publish it (scenario.Judge) and that verdict decides what a conformant
// peer must do with it, which the case's steps then check:
//
//   - refuse: it breaks a MUST rule, so no receiver takes it. The case is
//     the receiver family's case for it (suites/receiver.family.yaml):
//     never accepted or worked on; a refusal, if any, in the failure class
//     of the validation order (agh.RefusalReason); a refusal receipt
//     (SHOULD) where it carries a usable work context (agh.Answerable: a
//     directed say or capability; no page asks a receiver to answer a
//     broken trace or receipt); valid work served afterwards.
//   - accept: it is valid directed work (or a directed whois): the peer
//     takes it as it would take the seed, never refusing it in a protocol
//     failure class; where a mutation kept it valid on purpose (an unknown
//     extension, a large payload) acceptance is what that requirement says.
//   - ignore: it is addressed to another peer and seen on the broadcast
//     subject: never worked on, and valid work served afterwards.
//   - survive: it breaks only rules a receiver may tolerate (a byte order
//     mark, bytes that are not UTF-8, a repeated member, a number or a
//     nesting past aghcheck's own limits, a time not written as a plain
//     int64: rules.Rule.Tolerable), or the trust profile's rules at a
//     peer that does not take the profile, or only the replay age (the
//     receiver's own policy), or it is larger than any peer must accept,
//     or it is valid but says another workspace, channel or addressee
//     than the subject it comes on, or its ts lies ahead of the harness's
//     clock (the receiver's policy too), or it reports on work the IUT
//     never saw: the peer may take it or refuse it, and must serve valid
//     work afterwards (alive, connected, listening).
//
// A case's verdict is differential (see fuzzer.seeds): its seed, played
// unmutated first, must have met the oracle for the case's different
// behaviour to be a finding.
//
// Mutants the protocol leaves open are not played: one breaking only a
// SHOULD rule (a receiver may take it or not), one breaking a rule a
// receiver may tolerate beside another (its refusal class is open), and
// one whose id, work_id or sender a mutation fixed (cases would share it).

// Shapes of a case.
const (
	shapeRefuse  = "refuse"
	shapeAccept  = "accept"
	shapeIgnore  = "ignore"
	shapeSurvive = "survive"
)

// appReasons are the reasons a peer may refuse valid work for, its own
// decision (Message Kinds §Reason codes): it offers no such capability,
// it is busy, it failed, it will not serve that sender.
var appReasons = []any{agh.ReasonNotFound, agh.ReasonBusy, agh.ReasonInternal, agh.ReasonNotTarget}

// appRefusal is what a seed's case says when the IUT refuses valid work
// for a reason of its own.
const appRefusal = "the IUT refuses this valid work for a reason of its own (a refusal a peer may make: it may offer no capability, or be busy)"

// protocolReasons are the failure classes of the validation order: a
// valid message refused with one of them was misjudged (a peer may still
// refuse work for its own reasons, with another code).
var protocolReasons = []any{agh.ReasonMalformed, agh.ReasonUnsupportedProfile, agh.ReasonUnsupportedKind,
	agh.ReasonVerificationFailed, agh.ReasonExpired, agh.ReasonDuplicate}

// Case is one generated test: a mutant, the oracle's verdict on it and the
// scenario that plays and judges it.
type Case struct {
	N       int
	ID      string // the scenario id: fuzz.N.SEED-KIND.MUTATION
	Seed    string // the valid fixture it started from
	Ops     []string
	Keys    []string
	Send    scenario.Send
	Sign    bool
	Verdict scenario.Verdict
	Shape   string
	Accept  string // accept: the requirement acceptance is checked against ("" when none)
	// Classes are the failure classes a refusal may name when the
	// message breaks rules of several classes in the same step of the
	// Envelope page's validation order (Verdict.Reason among them): the
	// page gives no order inside a step. Nil when only one class fits.
	Classes  []string
	Scenario *scenario.Scenario

	draft *draft   // what it was made from (minimization remakes it)
	found []string // the keys of the findings it showed
}

// What is the case in words: its seed and what was done to it.
func (c *Case) What() string { return c.Seed + ": " + strings.Join(c.Ops, "; ") }

// Input names what the message is, for a reader: the rules it breaks,
// else "valid".
func (c *Case) Input() string {
	if len(c.Verdict.Breaks) == 0 {
		return "valid"
	}
	return strings.Join(c.Verdict.Breaks, "+")
}

// Signature is what two cases must share to count as the same test: the
// seed's kind, what was done (without values) and the verdict.
func (c *Case) Signature() string {
	return fmt.Sprintf("%s|%s|%s|%s|%s|%t", c.Shape, kindOf(c.Seed), strings.Join(c.Keys, ","), c.Input(), c.Verdict.Reason, c.Verdict.Answered)
}

// killSignature is what cases must share for one that kills the IUT to
// stand for the others: the seed's kind and what its message breaks.
func (c *Case) killSignature() string { return kindOf(c.Seed) + "|" + c.Input() }

// coverage is the verdict a case covers: its shape, the seed's kind, what
// the message breaks and how it must be refused.
func (c *Case) coverage() string {
	return fmt.Sprintf("%s|%s|%s|%s|%t", c.Shape, kindOf(c.Seed), c.Input(), c.Verdict.Reason, c.Verdict.Answered)
}

func kindOf(seed string) string {
	k, _, _ := strings.Cut(seed, "-")
	return k
}

// oracle turns drafts into cases.
type oracle struct {
	fam *scenario.Family
	now func() time.Time
	// trust says the IUT takes the trust profile: only then must it
	// refuse what breaks the profile's rules.
	trust bool
	// unmet are the seeds whose unmutated case did not meet the oracle
	// (fuzzer.seeds): set before any mutant is made.
	unmet map[string]bool
	// shapes are scenarios already made, by what their steps depend on:
	// a case whose steps are the same is a renamed copy with its own send.
	shapes map[string]*scenario.Scenario
}

var slug = regexp.MustCompile(`[^a-zA-Z0-9._+-]+`)

// build judges d and makes its case; ok is false for a mutant the
// protocol leaves open (see above), with why.
func (o *oracle) build(d *draft, n int) (c *Case, why string, err error) {
	v, err := scenario.Judge(&d.send, testPeer, d.seed.sign, o.now())
	if err != nil && d.send.Digest {
		// A capability broken so that it has no digest keeps the one
		// it came with.
		d.send.Digest = false
		v, err = scenario.Judge(&d.send, testPeer, d.seed.sign, o.now())
	}
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", d.seed.name, err)
	}
	c = &Case{N: n, Seed: d.seed.name, Ops: d.ops, Keys: d.keys, Send: d.send, Sign: d.seed.sign, Verdict: v, Accept: d.accept, draft: d}
	c.ID = caseID(n, d)
	errs, others := 0, 0
	for _, f := range v.Result.Findings {
		if f.Rule.Severity == rules.Error {
			errs++
		} else if f.Rule.Severity == rules.Warning {
			others++
		}
	}
	env := v.Result.Envelope
	// A refusal receipt is due only for the IUT's own message, and the
	// family's steps look for it under the identities it gives a case.
	c.Verdict.Answered = v.Answered && own(env) && agh.Str(env, "id") == "msg_judge_open" &&
		(env["work_id"] == nil || agh.Str(env, "work_id") == "work_judge_w")
	// What this IUT owes the message, and what a receiver refusing all
	// it may would say. The replay age is the receiver's own policy (a
	// SHOULD, its bound its own): a message only it would refuse may be
	// taken.
	owed := slices.DeleteFunc(slices.Clone(v.Result.Findings), func(f rules.Finding) bool {
		return f.Rule == agh.RuleReplayAge
	})
	duty := agh.DutyReason(owed, o.trust)
	switch {
	case d.bystander:
		c.Shape = shapeIgnore
	case duty != "" && duty != v.Strict:
		return nil, "it also breaks a rule a receiver may tolerate: the class of its refusal is open", nil
	case duty != "":
		c.Shape = shapeRefuse
		c.Verdict.Reason, c.Verdict.Status = duty, agh.RefusalStatus(duty)
		c.Classes = sameStep(owed, o.trust)
	case v.Strict != "":
		c.Shape = shapeSurvive
	case errs > 0:
		return nil, "it breaks a rule with no refusal class", nil
	case tolerated(v.Result.Findings):
		// The sender's SHOULD that a receiver may enforce (a time not
		// written as a plain int64, ENV-TS-LITERAL): taking it and
		// refusing it are both right.
		c.Shape = shapeSurvive
	case others > 0:
		return nil, "it breaks only a SHOULD rule", nil
	case !own(env):
		// Another workspace, channel or addressee than the subject it
		// comes on says: no sentence tells a receiver what to make of
		// it, but it must survive it.
		c.Shape = shapeSurvive
	case !isWork(env) && !isWhois(env):
		// A receipt, trace or continuation for work the IUT never saw
		// (out of order, or never sent), or a greet: what the IUT makes
		// of it shows in nothing it must send, but it must survive it.
		c.Shape = shapeSurvive
	case ahead(env, o.now()):
		// A ts ahead of the receiver's clock: whether it takes one is its
		// replay-age policy (erratum 11), no sentence of the pages.
		c.Shape = shapeSurvive
	default:
		c.Shape = shapeAccept
	}
	if d.replay && (c.Shape != shapeAccept || !isWork(env)) {
		// Refused twice, a duplicate may be refused as one (its own
		// class): only a replay of valid work has one right answer.
		return nil, "a replay of what is not valid work", nil
	}
	if env == nil && c.Shape == shapeSurvive {
		env = jsonx.Lenient(v.Raw) // past aghcheck's own decoder
	}
	if c.Shape != shapeRefuse && !fresh(env) {
		// A fixed id would be shared by every case that draws it: the
		// IUT, which may take the message, would rightly take the
		// second for the first's.
		return nil, "its id or work_id is fixed, not fresh", nil
	}
	if c.Shape == shapeAccept && !fromTester(env) {
		// Its answers go to another sender than the case's test peer
		// (one the IUT never saw greet, which it may decline to serve).
		return nil, "valid, but from another sender than the case's", nil
	}
	if c.Scenario, err = o.scenario(c, d); err != nil {
		return nil, "", err
	}
	return c, "", nil
}

// sameStep is every failure class a receiver may refuse a message with
// findings fs in, when its owed MUST findings of the earliest step of the
// validation order name more than one: step 2, "Validate required
// envelope fields, protocol, ...", lists the members it checks in no
// order, so a protocol this receiver does not take (unsupported_profile)
// and a required member missing (malformed) are refused in either class.
// Nil when one class fits.
func sameStep(fs []rules.Finding, trust bool) []string {
	first := 0
	var classes []string
	for _, f := range fs {
		if f.Rule == nil || f.Rule.Severity != rules.Error || f.RefusalCode() == "" || !agh.Owed(f.Rule, trust) {
			continue
		}
		switch st := agh.Stage(f.Rule); {
		case first == 0 || st < first:
			first, classes = st, []string{f.RefusalCode()}
		case st == first && !slices.Contains(classes, f.RefusalCode()):
			classes = append(classes, f.RefusalCode())
		}
	}
	if len(classes) < 2 {
		return nil
	}
	slices.Sort(classes)
	return classes
}

// tolerated reports whether fs holds a SHOULD rule a receiver may enforce
// by refusing (a Warning with a refusal reason and rules.Rule.Tolerable).
func tolerated(fs []rules.Finding) bool {
	return slices.ContainsFunc(fs, func(f rules.Finding) bool {
		return f.Rule.Severity == rules.Warning && f.Rule.Tolerable != "" && f.RefusalCode() != ""
	})
}

// aheadSkew is how far ahead of the harness's clock a ts may be and still
// be work every receiver must take: past it, the receiver's replay-age
// policy decides.
const aheadSkew = 60

// ahead reports whether env's ts lies more than aheadSkew seconds ahead
// of now (a ts past int64 is far ahead).
func ahead(env map[string]any, now time.Time) bool {
	ts, err := strconv.ParseFloat(fmt.Sprint(env["ts"]), 64)
	return err == nil && ts-float64(now.Unix()) > aheadSkew
}

// The stand-in run's identities (scenario.Judge): what a mutant's
// templates become there.
const (
	judgeWorkspace = "aghcheck-judge"
	judgeChannel   = "conformance"
	judgeIUT       = "iut.judge"
)

// own reports whether env is the IUT's: its workspace, channel and peer.
func own(env map[string]any) bool {
	return env != nil && agh.Str(env, "workspace_id") == judgeWorkspace && agh.Str(env, "channel") == judgeChannel && agh.Str(env, "to") == judgeIUT
}

// isWork reports whether env opens work the IUT takes: a say or a
// capability with a work_id and a container.
func isWork(env map[string]any) bool {
	k := agh.Str(env, "kind")
	_, container := agh.Container(env)
	return (k == agh.KindSay || k == agh.KindCapability) && agh.Str(env, "work_id") != "" && container != ""
}

// isWhois reports whether env is a whois request.
func isWhois(env map[string]any) bool {
	body, _ := agh.BodyOf(env)
	return agh.Str(env, "kind") == agh.KindWhois && body["type"] == "request"
}

// fromTester reports whether env comes from the case's test peer as the
// stand-in run names it (plain, or the verified handle of a signed case).
func fromTester(env map[string]any) bool {
	from := agh.Str(env, "from")
	return from == testPeer+".judge" || strings.HasPrefix(from, testPeer+"@")
}

// fresh reports whether env's id and work_id are the case's own (made
// from templates in the stand-in run: they carry its tag).
func fresh(env map[string]any) bool {
	id, work := agh.Str(env, "id"), agh.Str(env, "work_id")
	return strings.Contains(id, "_judge_") && (work == "" || strings.Contains(work, "_judge_"))
}

// caseID is fuzz.N.KIND.MUTATION, a valid scenario id.
func caseID(n int, d *draft) string {
	what := "seed"
	if len(d.keys) > 0 {
		what = d.keys[0]
	}
	what = strings.Trim(slug.ReplaceAllString(strings.ReplaceAll(what, "/", "."), "-"), ".-")
	id := fmt.Sprintf("fuzz.%d.%s.%s", n, slug.ReplaceAllString(d.seed.name, "-"), what)
	if len(id) > 120 {
		id = id[:120]
	}
	return strings.TrimRight(id, ".-+")
}

// scenario is the scenario of case c.
func (o *oracle) scenario(c *Case, d *draft) (*scenario.Scenario, error) {
	if c.Shape == shapeRefuse {
		return o.refuseScenario(c)
	}
	id, work := ids(d)
	claim, peers := "core-receiver", []any{map[string]any{"name": testPeer, "key": c.Sign}}
	doc := map[string]any{"id": c.ID, "peers": peers, "claim": claim}
	if c.Sign {
		doc["claim"], doc["requires"] = "trust", map[string]any{"profile": trust.ProfileID}
	}
	send := map[string]any{"send": map[string]any{}} // the case's own: see scenario.BuildSend
	switch c.Shape {
	case shapeIgnore:
		rule := requirements.NATSBroadcastNotAddressed.ID
		doc["title"] = "Directed work addressed to another peer, seen on the broadcast subject, is not worked on"
		doc["description"] = "Generated by aghcheck fuzz (" + c.What() + ")."
		doc["level"], doc["requirements"] = "MUST", []any{rule}
		doc["steps"] = []any{
			send,
			map[string]any{"expect_silence": map[string]any{"any_of": accepted(id, work)}, "checks": []any{rule}},
			probe(c.Sign),
			map[string]any{"expect": map[string]any{"any_of": accepted("{{id.probe}}", "{{work.probe}}")}, "checks": []any{scenario.Listening}},
		}
	case shapeSurvive:
		rule := requirements.PeerSurvives.ID
		doc["title"] = "A message a receiver may take or refuse (" + c.Input() + ") leaves the IUT serving valid work"
		doc["description"] = "Generated by aghcheck fuzz (" + c.What() + "): " + c.Input() + "; taking it or refusing it are both right."
		doc["level"], doc["requirements"] = "MUST", []any{rule}
		doc["steps"] = []any{
			send,
			probe(c.Sign),
			map[string]any{"expect": map[string]any{"any_of": accepted("{{id.probe}}", "{{work.probe}}")}, "checks": []any{scenario.Listening}},
		}
	default: // shapeAccept
		o.acceptSteps(c, d, doc, send, id, work)
	}
	key := fmt.Sprintf("%s|%t|%s|%v|%v|%v|%t|%t", c.Shape, c.Sign, c.Accept, isWhois(c.Verdict.Result.Envelope), id, work, d.replay, o.refusable(d))
	if tmpl := o.shapes[key]; tmpl != nil {
		sc := *tmpl
		sc.ID, sc.Title, sc.Description = c.ID, doc["title"].(string), doc["description"].(string)
		sc.Requirements = nil
		for _, r := range doc["requirements"].([]any) {
			sc.Requirements = append(sc.Requirements, r.(string))
		}
		sc.Steps = slices.Clone(tmpl.Steps)
		send := c.Send
		sc.Steps[0].Send = &send
		return &sc, nil
	}
	sc, err := scenario.BuildSend(doc, 0, c.Send)
	if err == nil {
		o.keep(key, sc)
	}
	return sc, err
}

// refuseScenario is the scenario of a case the IUT must refuse: the
// receiver family's, as for a fixture, reused across cases of one shape.
func (o *oracle) refuseScenario(c *Case) (*scenario.Scenario, error) {
	corpus, ok := o.fam.CorpusFor(c.Sign)
	if !ok {
		return nil, fmt.Errorf("the receiver family has no corpus for signed=%t messages", c.Sign)
	}
	fc := o.fam.Mutant(c.ID, c.What(), corpus, c.Send, c.Verdict)
	pos := c.Verdict.Kind
	if _, ok := o.fam.Positions[pos]; !ok || c.Verdict.Result.Envelope == nil {
		pos = "other"
	}
	key := fmt.Sprintf("refuse|%t|%s|%s|%s|%t|%s", fc.Answered, fc.Reason, fc.Status, pos, c.Sign, strings.Join(fc.ClassChecks, "+"))
	if fc.Answered {
		key += fmt.Sprintf("|%v|%v", c.Send.Tamper["from"], c.Send.Envelope["from"])
	}
	var sc *scenario.Scenario
	var err error
	if tmpl := o.shapes[key]; tmpl != nil {
		sc, err = o.fam.Reuse(tmpl, fc)
	} else if sc, err = o.fam.Scenario(fc); err == nil {
		o.keep(key, sc)
	}
	if err != nil {
		return nil, err
	}
	sc.Description = "Generated by aghcheck fuzz (" + c.What() + "): " + c.Input() + ", refused as " + c.Verdict.Reason + "."
	return sc, nil
}

// acceptSteps fills doc with the steps of a case the IUT must take: no
// refusal in a protocol failure class, then the work served (or, for a
// message published twice, taken once).
func (o *oracle) acceptSteps(c *Case, d *draft, doc, send map[string]any, id, work any) {
	class := requirements.DelivFailureClasses.ID
	reqs, level := []any{class}, "SHOULD"
	served := map[string]any{"any_of": accepted(id, work)}
	if isWhois(c.Verdict.Result.Envelope) {
		served = map[string]any{"match": map[string]any{"kind": "whois", "reply_to": id, "body": map[string]any{"type": "response"}}}
		c.Accept = requirements.DiscWhoisDirected.ID
	}
	check := []any{scenario.Listening}
	if c.Accept != "" {
		check, reqs = []any{c.Accept}, append(reqs, c.Accept)
		if r, ok := catalogue.Lookup(c.Accept); ok {
			level = r.Severity.Level()
		}
	}
	doc["title"] = "Valid " + kindOf(c.Seed) + " (" + strings.Join(c.Ops, "; ") + ") is taken, never refused in a protocol failure class"
	doc["description"] = "Generated by aghcheck fuzz (" + c.What() + ")."
	doc["level"], doc["requirements"] = level, reqs
	if o.refusable(d) {
		// An unmutated seed, or a mutant of one the IUT refused: a
		// refusal for a reason of its own ends the wait (skip).
		served["unobservable"] = map[string]any{"because": appRefusal, "any_of": []any{map[string]any{"kind": "receipt",
			"body": map[string]any{"for_id": id, "status": agh.StatusRejected, "reason_code": map[string]any{"$in": appReasons}}}}}
	}
	doc["steps"] = []any{
		send,
		map[string]any{"expect_silence": map[string]any{"any_of": []any{map[string]any{"kind": "receipt",
			"body": map[string]any{"for_id": id, "reason_code": map[string]any{"$in": protocolReasons}}}}}, "checks": []any{class}},
		map[string]any{"expect": served, "checks": check},
	}
	if d.replay {
		// Taken once: its accepted receipt, a duplicate receipt for
		// the copy (DELIV-DEDUPE, as delivery.duplicate-id plays
		// it), and no second acceptance once fresh work shows the
		// copy was read.
		dedupe, receipt := requirements.DelivDedupe.ID, requirements.LifeReceipt.ID
		once := map[string]any{"kind": "receipt", "body": map[string]any{"for_id": id, "status": "accepted"}}
		dup := map[string]any{"kind": "receipt", "body": map[string]any{"for_id": id, "status": "duplicate", "reason_code": "duplicate"}}
		doc["title"] = "Valid " + kindOf(c.Seed) + " published twice (" + strings.Join(c.Ops, "; ") + ") is taken once"
		doc["requirements"] = append(reqs, receipt, dedupe)
		// The copy may be refused as a duplicate, and only so.
		firstClasses := slices.DeleteFunc(slices.Clone(protocolReasons), func(r any) bool { return r == agh.ReasonDuplicate })
		doc["steps"] = []any{
			send,
			map[string]any{"expect_silence": map[string]any{"any_of": []any{map[string]any{"kind": "receipt",
				"body": map[string]any{"for_id": id, "reason_code": map[string]any{"$in": firstClasses}}}}}, "checks": []any{class}},
			map[string]any{"expect": map[string]any{"match": once}, "checks": []any{receipt}},
			map[string]any{"expect": map[string]any{"match": dup}, "checks": []any{dedupe}},
			map[string]any{"expect_silence": map[string]any{"match": once}, "checks": []any{dedupe}},
			probe(c.Sign),
			map[string]any{"expect": map[string]any{"any_of": accepted("{{id.probe}}", "{{work.probe}}")}, "checks": []any{scenario.Listening}},
		}
	}
}

// refusable reports whether d's acceptance may end in a refusal for the
// IUT's own reasons without a finding: d is a seed played unmutated
// (what it shows is what the IUT does with valid work of that kind), or
// a mutant of a seed the IUT did not take (its behaviour is not judged).
func (o *oracle) refusable(d *draft) bool { return d.unmutated || o.unmet[d.seed.name] }

// keep remembers a scenario made for a key (see oracle.shapes).
func (o *oracle) keep(key string, sc *scenario.Scenario) {
	if o.shapes == nil || len(o.shapes) > 4096 {
		o.shapes = map[string]*scenario.Scenario{}
	}
	o.shapes[key] = sc
}

// ids are the id and work_id the IUT's answers to d name (templates, or
// the literal values a mutation put there). For changed bytes they are
// read from the text, the last of each as most decoders read a member
// given twice (a bytes mutation may add an id of its own).
func ids(d *draft) (id, work any) {
	env := d.send.Envelope
	if env == nil && d.pre != nil {
		env = d.pre.Envelope
	}
	if env == nil {
		env = d.seed.send.Envelope
	}
	id, work = env["id"], env["work_id"]
	if d.send.Raw != nil {
		if m := rawID.FindAllStringSubmatch(*d.send.Raw, -1); m != nil {
			id = m[len(m)-1][1]
		}
		if m := rawWorkID.FindAllStringSubmatch(*d.send.Raw, -1); m != nil {
			work = m[len(m)-1][1]
		}
	}
	return id, work
}

// rawID and rawWorkID find the id and work_id templates in a case's text.
var (
	rawID     = regexp.MustCompile(`"id":\s*"(\{\{[^"]*\}\})"`)
	rawWorkID = regexp.MustCompile(`"work_id":\s*"(\{\{[^"]*\}\})"`)
)

// accepted are the patterns that show the IUT took message id as work.
func accepted(id, work any) []any {
	out := []any{map[string]any{"kind": "receipt", "body": map[string]any{"for_id": id, "status": "accepted"}}}
	if work != nil {
		out = append(out, map[string]any{"kind": "trace", "work_id": work})
	}
	return out
}

// probe is fresh work sent after a message that must stay unanswered: its
// answer shows the IUT processed what came before.
func probe(sign bool) any {
	return map[string]any{"send": map[string]any{"to": "iut", "sign": sign, "envelope": map[string]any{
		"kind": "say", "id": "{{id.probe}}", "surface": "thread", "thread_id": "{{thread.probe}}",
		"work_id": "{{work.probe}}", "body": map[string]any{"text": "Anyone there?"}}}}
}

// roles says what each step of a case's scenario checks: "send",
// "refusal" (the refusal receipt), "class" (no refusal in another failure
// class), "taken" (never accepted or worked on), "served" (valid work is
// served, or the message itself is taken). The receiver family's steps are
// recognised by what they check and match.
func roles(sc *scenario.Scenario) []string {
	out := make([]string, len(sc.Steps))
	for i, st := range sc.Steps {
		switch {
		case st.Send != nil:
			out[i] = "send"
		case st.Expect != nil && slices.Contains(st.Checks, requirements.DelivRefusalReceipt.ID):
			out[i] = "refusal"
		case st.Expect != nil:
			out[i] = "served"
		case st.ExpectSilence != nil && (slices.Contains(st.Checks, requirements.DelivFailureClasses.ID) || mentionsNe(st.ExpectSilence.Patterns())):
			out[i] = "class"
		case st.ExpectSilence != nil:
			out[i] = "taken"
		default:
			out[i] = "other"
		}
	}
	return out
}

// mentionsNe reports whether a pattern matches receipts by a reason_code
// other than one ($ne): the family's silence on the wrong failure class.
func mentionsNe(pats []map[string]any) bool {
	for _, p := range pats {
		body, _ := p["body"].(map[string]any)
		rc, _ := body["reason_code"].(map[string]any)
		if _, ok := rc["$ne"]; ok {
			return true
		}
	}
	return false
}

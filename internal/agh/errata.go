package agh

import (
	"fmt"
	"sort"
	"strings"
)

// Errata flags, one per decision in docs/errata.md where a user may want the
// other reading (usually to match the reference runtime). The zero value is
// aghcheck's default: what the seed documents state explicitly.
type Errata struct {
	// SkipDirectIDDerivation drops the direct_id derivation check (erratum 1),
	// e.g. to accept the seed's own direct-room examples.
	SkipDirectIDDerivation bool
	// SkipCapabilityDigest checks capability.digest only for being a
	// non-blank string (erratum 2), e.g. to accept the seed's printed
	// capability examples (one of which is not even 64 hex digits long).
	SkipCapabilityDigest bool
	// NullAsAbsent treats null reply_to, trace_id, causation_id and
	// expires_at as absent, like the reference runtime (erratum 3).
	NullAsAbsent bool
	// AllowUnknownFields ignores unknown top-level fields, like the reference
	// runtime; interaction_id is still refused (erratum 4).
	AllowUnknownFields bool
	// ReferenceWorkID uses the reference work_id grammar (erratum 5).
	ReferenceWorkID bool
	// ReferenceThreadID uses the reference thread_id grammar (erratum 6).
	ReferenceThreadID bool
	// CapabilityRequiresWorkID requires work_id on every capability (erratum 7).
	CapabilityRequiresWorkID bool
	// RejectFutureTS refuses a ts more than the replay age ahead of now
	// (erratum 11; needs Options.Now).
	RejectFutureTS bool
	// RejectSecretKeys refuses body/proof/ext members whose keys name raw
	// secrets (token, password, api_key, ...) (erratum 11).
	RejectSecretKeys bool
	// PlainTimes refuses a ts or expires_at that the schema's integer
	// admits but a typed decoder does not (1.0, 1e9, past int64): ENV-TS
	// and ENV-EXPIRES-AT in place of the ENV-TS-LITERAL warning
	// (docs/errata.md, "Integral times").
	PlainTimes bool
}

// ErrataInfo describes one errata flag for --errata help and docs.
type ErrataInfo struct {
	Name        string
	Description string
	// Rules are the rules whose verdict the reading changes: a finding on
	// one of them points at the flag (run and validate reports).
	Rules []string
}

type errataFlag struct {
	info ErrataInfo
	ref  bool // part of the Reference preset
	ptr  func(*Errata) *bool
}

var errataFlags = []errataFlag{
	{ErrataInfo{"skip-direct-id-derivation", "erratum 1: do not check that direct_id is derived from (workspace_id, channel, from, to)", []string{"ENV-DIRECT-ID-DERIVATION"}}, false,
		func(e *Errata) *bool { return &e.SkipDirectIDDerivation }},
	{ErrataInfo{"skip-capability-digest", "erratum 2: do not check capability.digest against the canonical digest (nor its sha256:hex shape)", []string{"CAP-DIGEST"}}, false,
		func(e *Errata) *bool { return &e.SkipCapabilityDigest }},
	{ErrataInfo{"null-as-absent", "erratum 3: accept null reply_to, trace_id, causation_id and expires_at as absent", []string{"ENV-NULL-OPTIONAL"}}, true,
		func(e *Errata) *bool { return &e.NullAsAbsent }},
	{ErrataInfo{"allow-unknown-fields", "erratum 4: ignore unknown top-level fields (interaction_id is still refused)", []string{"ENV-UNKNOWN-FIELD"}}, true,
		func(e *Errata) *bool { return &e.AllowUnknownFields }},
	{ErrataInfo{"reference-work-id", "erratum 5: accept any work_id without '/', '\\' or control characters, up to 128 chars", []string{"ENV-WORK-ID-GRAMMAR"}}, true,
		func(e *Errata) *bool { return &e.ReferenceWorkID }},
	{ErrataInfo{"reference-thread-id", "erratum 6: require thread_id to match ^thread_[a-z0-9][a-z0-9_-]{2,95}$", []string{"ENV-THREAD-ID-GRAMMAR"}}, true,
		func(e *Errata) *bool { return &e.ReferenceThreadID }},
	{ErrataInfo{"capability-requires-work-id", "erratum 7: require work_id on every capability envelope", []string{"KIND-WORK-ID-REQUIRED"}}, true,
		func(e *Errata) *bool { return &e.CapabilityRequiresWorkID }},
	{ErrataInfo{"reject-future-ts", "erratum 11: refuse a ts more than the replay age in the future (needs --now)", []string{"ENV-TS-FUTURE"}}, true,
		func(e *Errata) *bool { return &e.RejectFutureTS }},
	{ErrataInfo{"reject-secret-keys", "erratum 11: refuse body, proof or ext members whose keys name raw secrets", []string{"ENV-SECRET-MATERIAL"}}, true,
		func(e *Errata) *bool { return &e.RejectSecretKeys }},
	{ErrataInfo{"plain-times", "integral times: refuse a ts or expires_at not written as a plain integer that fits in int64 (1.0, 1e9, 1e+30), as typed decoders do", []string{"ENV-TS-LITERAL"}}, false,
		func(e *Errata) *bool { return &e.PlainTimes }},
}

// ErrataNames lists every errata flag with a one-line description.
func ErrataNames() []ErrataInfo {
	out := make([]ErrataInfo, len(errataFlags))
	for i, f := range errataFlags {
		out[i] = f.info
	}
	return out
}

// Set turns on the named flag ("reference" turns on the whole preset).
func (e *Errata) Set(name string) error {
	name = strings.TrimSpace(name)
	if name == "reference" {
		*e = e.union(Reference())
		return nil
	}
	for _, f := range errataFlags {
		if f.info.Name == name {
			*f.ptr(e) = true
			return nil
		}
	}
	names := make([]string, 0, len(errataFlags))
	for _, f := range errataFlags {
		names = append(names, f.info.Name)
	}
	sort.Strings(names)
	return fmt.Errorf("unknown errata %q (known: %s, reference)", name, strings.Join(names, ", "))
}

// Names lists the flags that are on, in catalogue order.
func (e Errata) Names() []string {
	var out []string
	for _, f := range errataFlags {
		if *f.ptr(&e) {
			out = append(out, f.info.Name)
		}
	}
	return out
}

func (e Errata) union(o Errata) Errata {
	for _, f := range errataFlags {
		if *f.ptr(&o) {
			*f.ptr(&e) = true
		}
	}
	return e
}

// Reference is the preset that matches the reference runtime (compozy/agh):
// every reading it implements differently from the seeds. The derivation and
// digest checks stay on: the runtime enforces those too.
func Reference() Errata {
	var e Errata
	for _, f := range errataFlags {
		if f.ref {
			*f.ptr(&e) = true
		}
	}
	return e
}

// Runtimes names the implementations Compat knows, for help and errors.
const Runtimes = "reference"

// Compat is the preset of the runtime named: every reading it implements
// differently from the pages ("" for none, "reference" for compozy/agh).
// validate, monitor and run --compat all read it here, so the runtime's
// readings are one list (the ref marks of errataFlags).
func Compat(runtime string) (Errata, error) {
	switch strings.TrimSpace(runtime) {
	case "":
		return Errata{}, nil
	case "reference":
		return Reference(), nil
	}
	return Errata{}, fmt.Errorf("unknown runtime %q (known: %s)", runtime, Runtimes)
}

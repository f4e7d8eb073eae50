package agh

import (
	"strings"

	"github.com/aghcheck/aghcheck/rules"
)

// Stage is the step of the Envelope page's validation order a rule belongs
// to (1 parse ... 7 routing); rules from other packages are placed by
// profile: input rules at 1, trust-profile rules at 6.
func Stage(r *rules.Rule) int {
	if s, ok := stageOf[r]; ok {
		return s
	}
	switch {
	case r.Profile == "input":
		return stageInput
	case r.Profile == "agh-trust" || strings.HasPrefix(r.ID, "TRUST-"):
		return stageTrust
	}
	return stageOther
}

// RefusalReason is the receipt reason_code a receiver uses for these
// findings, following the validation order ("" when nothing refuses): the
// reason of the error-severity finding in the earliest stage wins (ties go
// to the first reported). Warnings never refuse.
func RefusalReason(fs []rules.Finding) string {
	best, reason := stageOther+1, ""
	for _, f := range fs {
		if f.Rule == nil || f.Rule.Severity != rules.Error || f.Rule.Reason == "" {
			continue
		}
		if s := Stage(f.Rule); s < best {
			best, reason = s, f.Rule.Reason
		}
	}
	return reason
}

package trust

import "github.com/aghcheck/aghcheck/rules"

// One rule per step of the verification algorithm, so a report names the
// exact step that failed. Evaluate stops at the first failing step, as the
// algorithm does: later steps depend on the values earlier steps vouch for.
const (
	srcVerify   = "AGH Signature Verification §Verification algorithm step "
	ruleProfile = "agh-trust"
)

var (
	RuleProofObject = &rules.Rule{ID: "TRUST-PROOF-OBJECT", Profile: ruleProfile, Severity: rules.Error, Reason: "malformed",
		Clause: "proof MUST be a JSON object when it is present and not null.",
		Source: srcVerify + "1; §Error semantics (non-object proof is malformed)"}
	RuleProofProfile = &rules.Rule{ID: "TRUST-PROOF-PROFILE", Profile: ruleProfile, Severity: rules.Error, Reason: "malformed",
		Clause: "A proof object MUST name its trust profile in proof.profile, a non-empty string.",
		Source: srcVerify + "2; AGH Ed25519 + JCS §Proof object"}
	RuleProfileUnsupported = &rules.Rule{ID: "TRUST-PROFILE-UNSUPPORTED", Profile: ruleProfile, Severity: rules.Warning, Reason: "unsupported_profile",
		Clause: "A proof SHOULD use the baseline profile " + ProfileID + "; under any other profile the envelope is only unverified (or refused as unsupported_profile).",
		Source: "AGH Signature Verification §Handling unsigned messages; §Error semantics"}
	RuleProofAlg = &rules.Rule{ID: "TRUST-PROOF-ALG", Profile: ruleProfile, Severity: rules.Error, Reason: "verification_failed",
		Clause: "proof.alg MUST equal \"Ed25519\".",
		Source: srcVerify + "3; AGH Ed25519 + JCS §Proof object"}
	RulePubkey = &rules.Rule{ID: "TRUST-PUBKEY", Profile: ruleProfile, Severity: rules.Error, Reason: "verification_failed",
		Clause: "proof.pubkey MUST be base64url without padding over exactly 32 raw bytes.",
		Source: srcVerify + "4; AGH Ed25519 + JCS §Algorithms"}
	RuleKeyID = &rules.Rule{ID: "TRUST-KEY-ID", Profile: ruleProfile, Severity: rules.Error, Reason: "verification_failed",
		Clause: "proof.key_id MUST equal \"sha256:\" followed by the 64 lowercase hex digits of SHA-256(pubkey).",
		Source: srcVerify + "5-6; AGH Ed25519 + JCS §Proof object"}
	RuleFromHandle = &rules.Rule{ID: "TRUST-FROM-HANDLE", Profile: ruleProfile, Severity: rules.Error, Reason: "verification_failed",
		Clause: "A signed envelope's from MUST be a verified handle nickname@fingerprint.",
		Source: srcVerify + "7; AGH Ed25519 + JCS §Verified identity"}
	RuleNickname = &rules.Rule{ID: "TRUST-NICKNAME", Profile: ruleProfile, Severity: rules.Error, Reason: "verification_failed",
		Clause: "The nickname of a verified handle MUST match [a-z0-9_-]{1,32}.",
		Source: srcVerify + "8; AGH Ed25519 + JCS §Verified identity"}
	RuleFingerprint = &rules.Rule{ID: "TRUST-FINGERPRINT", Profile: ruleProfile, Severity: rules.Error, Reason: "verification_failed",
		Clause: "The fingerprint of a verified handle MUST be the first 32 lowercase hex digits of SHA-256(proof.pubkey).",
		Source: srcVerify + "9; AGH Ed25519 + JCS §Verified identity"}
	RuleSigEncoding = &rules.Rule{ID: "TRUST-SIG-ENCODING", Profile: ruleProfile, Severity: rules.Error, Reason: "verification_failed",
		Clause: "proof.sig MUST be base64url without padding over exactly 64 raw bytes.",
		Source: srcVerify + "10; AGH Ed25519 + JCS §Algorithms"}
	RuleCanonical = &rules.Rule{ID: "TRUST-JCS", Profile: ruleProfile, Severity: rules.Error, Reason: "verification_failed",
		Clause: "A signed envelope MUST have an RFC 8785 canonical form (finite I-JSON numbers, valid UTF-8).",
		Source: srcVerify + "11-12; RFC 8785 §3.2"}
	RuleSigVerify = &rules.Rule{ID: "TRUST-SIG-VERIFY", Profile: ruleProfile, Severity: rules.Error, Reason: "verification_failed",
		Clause: "proof.sig MUST be a valid Ed25519 signature by proof.pubkey over the JCS bytes of the whole envelope without proof.sig.",
		Source: srcVerify + "13; AGH Ed25519 + JCS §Signed content"}
	RuleProofStripped = &rules.Rule{ID: "TRUST-PROOF-STRIPPED", Profile: ruleProfile, Severity: rules.Error, Reason: "verification_failed",
		Clause: "An envelope whose from is a verified handle MUST carry a proof; without one it is rejected as proof stripping.",
		Source: "AGH Signature Verification §Proof-stripping defense"}
)

func init() {
	rules.Register(RuleProofObject, RuleProofProfile, RuleProfileUnsupported, RuleProofAlg, RulePubkey, RuleKeyID,
		RuleFromHandle, RuleNickname, RuleFingerprint, RuleSigEncoding, RuleCanonical, RuleSigVerify, RuleProofStripped)
}

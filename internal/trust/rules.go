package trust

import "github.com/aghcheck/aghcheck/internal/rules"

const srcVerify = "AGH Signature Verification §Verification algorithm step "

var trustRules = rules.Declarer{Profile: "agh-trust", Reason: "verification_failed"}

// One rule per step of the verification algorithm, so a report names the
// exact step that failed. Evaluate stops at the first failing step, as the
// algorithm does: later steps depend on the values earlier steps vouch for.
var (
	RuleProofObject = trustRules.Declare(rules.Rule{ID: "TRUST-PROOF-OBJECT", Reason: "malformed",
		Clause: "proof MUST be a JSON object when it is present and not null.",
		Source: srcVerify + "1; §Error semantics (non-object proof is malformed)",
		Basis:  `Signature Verification §Verification algorithm: "a receiver MUST perform every step in this order", step 1: proof is a JSON object`})
	RuleProofProfile = trustRules.Declare(rules.Rule{ID: "TRUST-PROOF-PROFILE", Reason: "malformed",
		Clause: "A proof object MUST name its trust profile in proof.profile, a non-empty string.",
		Source: srcVerify + "2; AGH Ed25519 + JCS §Proof object",
		Basis:  `Signature Verification §Verification algorithm (every step a MUST), step 2; Ed25519 + JCS §Proof object, profile: "MUST equal agh-network.trust.ed25519-jcs/v1."`})
	RuleProfileUnsupported = trustRules.Declare(rules.Rule{ID: "TRUST-PROFILE-UNSUPPORTED", Severity: rules.Warning, Reason: "unsupported_profile",
		Clause: "A proof SHOULD use the baseline profile " + ProfileID + "; under any other profile the envelope is only unverified (or refused as unsupported_profile).",
		Source: "AGH Signature Verification §Handling unsigned messages; §Error semantics",
		Basis:  `Signature Verification §Handling unsigned messages: an unsupported profile is unverified, "Receiver MAY route under unverified or unsupported-profile policy."; §Error semantics names unsupported_profile only as the "Recommended reason code": SHOULD`})
	RuleProofAlg = trustRules.Declare(rules.Rule{ID: "TRUST-PROOF-ALG",
		Clause: "proof.alg MUST equal \"Ed25519\".",
		Source: srcVerify + "3; AGH Ed25519 + JCS §Proof object",
		Basis:  `Signature Verification §Verification algorithm (every step a MUST), step 3; Ed25519 + JCS §Proof object, alg: "MUST equal Ed25519."`})
	RulePubkey = trustRules.Declare(rules.Rule{ID: "TRUST-PUBKEY",
		Clause: "proof.pubkey MUST be base64url without padding over exactly 32 raw bytes.",
		Source: srcVerify + "4; AGH Ed25519 + JCS §Algorithms",
		Basis:  `Signature Verification §Verification algorithm (every step a MUST), step 4; Ed25519 + JCS §Algorithms: "MUST be base64url without padding over the raw 32-byte public key."`})
	RuleKeyID = trustRules.Declare(rules.Rule{ID: "TRUST-KEY-ID",
		Clause: "proof.key_id MUST equal \"sha256:\" followed by the 64 lowercase hex digits of SHA-256(pubkey).",
		Source: srcVerify + "5-6; AGH Ed25519 + JCS §Proof object",
		Basis:  `Signature Verification §Verification algorithm (every step a MUST), steps 5-6; Ed25519 + JCS §Proof object, key_id: "MUST equal sha256: followed by the full 64-character lowercase hex SHA-256 digest of pubkey."`})
	RuleFromHandle = trustRules.Declare(rules.Rule{ID: "TRUST-FROM-HANDLE",
		Clause: "A signed envelope's from MUST be a verified handle nickname@fingerprint.",
		Source: srcVerify + "7; AGH Ed25519 + JCS §Verified identity",
		Basis:  `Signature Verification §Verification algorithm (every step a MUST), step 7; Ed25519 + JCS §Verified identity: from "MUST use the verified sender handle format"`})
	RuleNickname = trustRules.Declare(rules.Rule{ID: "TRUST-NICKNAME",
		Clause: "The nickname of a verified handle MUST match [a-z0-9_-]{1,32}.",
		Source: srcVerify + "8; AGH Ed25519 + JCS §Verified identity",
		Basis:  `Signature Verification §Verification algorithm (every step a MUST), step 8; Ed25519 + JCS §Verified identity, nickname: "MUST match [a-z0-9_-]{1,32}."`})
	RuleFingerprint = trustRules.Declare(rules.Rule{ID: "TRUST-FINGERPRINT",
		Clause: "The fingerprint of a verified handle MUST be the first 32 lowercase hex digits of SHA-256(proof.pubkey).",
		Source: srcVerify + "9; AGH Ed25519 + JCS §Verified identity",
		Basis:  `Signature Verification §Verification algorithm (every step a MUST), step 9; Ed25519 + JCS §Verified identity, fingerprint: "MUST be the first 32 lowercase hexadecimal characters of SHA-256(pubkey)."`})
	RuleSigEncoding = trustRules.Declare(rules.Rule{ID: "TRUST-SIG-ENCODING",
		Clause: "proof.sig MUST be base64url without padding over exactly 64 raw bytes.",
		Source: srcVerify + "10; AGH Ed25519 + JCS §Algorithms",
		Basis:  `Signature Verification §Verification algorithm (every step a MUST), step 10; Ed25519 + JCS §Algorithms: "MUST be base64url without padding over the raw 64-byte Ed25519 signature."`})
	RuleCanonical = trustRules.Declare(rules.Rule{ID: "TRUST-JCS",
		Clause: "A signed envelope MUST have an RFC 8785 canonical form (finite I-JSON numbers, valid UTF-8).",
		Source: srcVerify + "11-12; RFC 8785 §3.2",
		Basis:  `Signature Verification §Verification algorithm (every step a MUST), steps 11-12; Ed25519 + JCS §Algorithms, Canonical JSON: "MUST be RFC 8785 JSON Canonicalization Scheme"`})
	RuleSigVerify = trustRules.Declare(rules.Rule{ID: "TRUST-SIG-VERIFY",
		Clause: "proof.sig MUST be a valid Ed25519 signature by proof.pubkey over the JCS bytes of the whole envelope without proof.sig.",
		Source: srcVerify + "13; AGH Ed25519 + JCS §Signed content",
		Basis:  `Signature Verification §Verification algorithm, step 13, and "If any required step fails, the receiver MUST classify the envelope as rejected."`})
	RuleProofStripped = trustRules.Declare(rules.Rule{ID: "TRUST-PROOF-STRIPPED",
		Clause: "An envelope whose from is a verified handle MUST carry a proof; without one it is rejected as proof stripping.",
		Source: "AGH Signature Verification §Proof-stripping defense",
		Basis:  `Signature Verification §Proof-stripping defense: "A message with that from value but without proof MUST be rejected."`})
)

// Rules returns the signature verification rules, for the catalogue.
func Rules() []*rules.Rule { return trustRules.Rules() }

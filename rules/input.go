package rules

// Rules about the bytes themselves, shared by every format: a document that
// cannot be decoded never reaches a profile's checks.
var (
	InputSyntax = &Rule{ID: "INPUT-JSON-SYNTAX", Profile: "input", Severity: Error, Reason: "malformed",
		Clause: "A message MUST be one complete, well-formed JSON value (RFC 8259).", Source: "RFC 8259; AGH Envelope §Wire contract"}
	InputUTF8 = &Rule{ID: "INPUT-UTF8", Profile: "input", Severity: Error, Reason: "malformed",
		Clause: "A message MUST be encoded as valid UTF-8.", Source: "RFC 8259 §8.1; AGH Envelope (UTF-8 JSON object)"}
	InputDuplicateKey = &Rule{ID: "INPUT-DUPLICATE-KEY", Profile: "input", Severity: Error, Reason: "malformed",
		Clause: "An object MUST NOT repeat a member name: receivers disagree on which value wins.", Source: "RFC 8259 §4; RFC 8785 §3.1 (I-JSON)"}
	InputDepth = &Rule{ID: "INPUT-DEPTH", Profile: "input", Severity: Error, Reason: "malformed",
		Clause: "A message MUST NOT nest arrays and objects deeper than 128 levels.", Source: "aghcheck decoder limit (RFC 8259 §9 allows limits)"}
	InputNumber = &Rule{ID: "INPUT-NUMBER-RANGE", Profile: "input", Severity: Error, Reason: "malformed",
		Clause: "A number MUST be representable as an IEEE 754 double (I-JSON), so canonical forms agree.", Source: "RFC 7493 §2.2; RFC 8785 §3.2.2.3"}
	InputNotObject = &Rule{ID: "INPUT-NOT-OBJECT", Profile: "input", Severity: Error, Reason: "malformed",
		Clause: "A message MUST be a JSON object at the top level.", Source: "AGH Envelope §Validation order step 1"}
	InputTooLarge = &Rule{ID: "INPUT-SIZE", Profile: "input", Severity: Error, Reason: "malformed",
		Clause: "A serialized message MUST NOT exceed 1 MiB (1048576 bytes).", Source: "AGH NATS binding §Connection configuration (max_payload); Delivery page"}
	InputUnknownFormat = &Rule{ID: "INPUT-UNKNOWN-FORMAT", Profile: "input", Severity: Error,
		Clause: "A document MUST be recognisable as one of the supported formats (force one with --profile).", Source: "aghcheck profile detection"}
)

func init() {
	Register(InputSyntax, InputUTF8, InputDuplicateKey, InputDepth, InputNumber, InputNotObject, InputTooLarge, InputUnknownFormat)
}

package rules

var input = Declarer{Profile: "input"}

// Rules about the bytes themselves, shared by every format: a document that
// cannot be decoded never reaches a profile's checks.
var (
	InputSyntax = input.Declare(Rule{ID: "INPUT-JSON-SYNTAX", Reason: "malformed",
		Clause: "A message MUST be one complete, well-formed JSON value (RFC 8259).", Source: "RFC 8259; AGH Envelope §Wire contract",
		Basis: `Envelope §Wire contract: "An implementation MUST encode each message as a JSON object."`})
	InputUTF8 = input.Declare(Rule{ID: "INPUT-UTF8", Reason: "malformed",
		Clause: "A message MUST be encoded as valid UTF-8.", Source: "RFC 8259 §8.1; AGH Envelope (UTF-8 JSON object)",
		Basis:     `NATS binding §Binding scope, Payload: "MUST be one complete AGH Network envelope encoded as UTF-8 JSON."; Envelope: every message "is a UTF-8 JSON object"`,
		Tolerable: `the sentence binds the publisher (NATS binding: the payload "MUST be ... encoded as UTF-8 JSON"), and RFC 8259 §8.1 lets a parser take text that is not UTF-8 (many decoders read each bad byte as U+FFFD); no AGH sentence makes a receiver refuse it`})
	InputBOM = input.Declare(Rule{ID: "INPUT-BOM", Reason: "malformed",
		Clause: "A message MUST NOT begin with a byte order mark (U+FEFF).", Source: "RFC 8259 §8.1",
		Basis:     `RFC 8259 §8.1: "Implementations MUST NOT add a byte order mark (U+FEFF) to the beginning of a networked-transmitted JSON text."`,
		Tolerable: `RFC 8259 §8.1: parsers "MAY ignore the presence of a byte order mark rather than treating it as an error"`})
	InputDuplicateKey = input.Declare(Rule{ID: "INPUT-DUPLICATE-KEY", Reason: "malformed",
		Clause: "An object MUST NOT repeat a member name: receivers disagree on which value wins.", Source: "RFC 8259 §4; RFC 8785 §3.1 (I-JSON)",
		Tolerable: "RFC 8259 §4 says names SHOULD be unique and leaves what a parser makes of a repeat to it; no AGH sentence makes a receiver refuse one (a signed message is another matter: JCS needs I-JSON, TRUST-JCS)"})
	InputDepth = input.Declare(Rule{ID: "INPUT-DEPTH", Reason: "malformed",
		Clause: "A message MUST NOT nest arrays and objects deeper than 128 levels.", Source: "aghcheck decoder limit (RFC 8259 §9 allows limits)",
		Tolerable: "RFC 8259 §9 lets each parser set its own limit on nesting depth: 128 is aghcheck's, not the protocol's"})
	InputNumber = input.Declare(Rule{ID: "INPUT-NUMBER-RANGE", Reason: "malformed",
		Clause: "A number MUST be representable as an IEEE 754 double (I-JSON), so canonical forms agree.", Source: "RFC 7493 §2.2; RFC 8785 §3.2.2.3",
		Tolerable: "RFC 8259 §6 lets each implementation set the range and precision of the numbers it takes; no AGH sentence makes a receiver refuse a larger one (a signed message is another matter: TRUST-JCS)"})
	InputNotObject = input.Declare(Rule{ID: "INPUT-NOT-OBJECT", Reason: "malformed",
		Clause: "A message MUST be a JSON object at the top level.", Source: "AGH Envelope §Validation order step 1",
		Basis: `Envelope §Wire contract: "An implementation MUST encode each message as a JSON object."`})
	InputTooLarge = input.Declare(Rule{ID: "INPUT-SIZE", Reason: "malformed",
		Clause: "A serialized message MUST NOT exceed 1 MiB (1048576 bytes).", Source: "AGH NATS binding §Connection configuration (max_payload); Delivery page",
		Basis:     `Capability Discovery §Response rules: "Responses that would exceed the protocol envelope size limit MUST be rejected by the responder before emission."; the limit is 1 MiB (NATS binding §Connection configuration, max_payload 1048576)`,
		Tolerable: "the sentence binds the sender: the NATS binding makes a peer support at least 1 MiB, and a receiver whose broker carries more may take a larger message"})
	InputUnknownFormat = input.Declare(Rule{ID: "INPUT-UNKNOWN-FORMAT",
		Clause: "A document MUST be recognisable as one of the supported formats (force one with --profile).", Source: "aghcheck profile detection"})
)

// InputRules returns the rules about the bytes themselves, for the catalogue.
func InputRules() []*Rule { return input.Rules() }

// Package suites embeds the shipped conformance scenarios. A scenario's
// folder is its group of the self-certification record, named as the AGH
// conformance page names it with "/" for "." (core/envelope is
// core.envelope): core/envelope, core/message-kinds, core/lifecycle,
// core/delivery, core/extensions, trust/ed25519-jcs, transport/nats,
// concurrency (the full level's scenarios that publish at once) and the
// optional transport/jetstream/persistence. receiver.family.yaml is the
// template of the receiver family, whose cases each group's receiver.yaml
// plays.
package suites

import (
	"embed"
	"io/fs"
)

//go:embed core trust transport concurrency receiver.family.yaml
var files embed.FS

// FS is the embedded suite tree; each scenario's suite is its directory.
func FS() fs.FS { return files }

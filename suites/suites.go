// Package suites embeds the shipped conformance scenarios, grouped as the
// AGH conformance page groups them: core/envelope, core/kinds,
// core/lifecycle, core/delivery, core/extensions, trust, nats and the
// optional jetstream profile.
package suites

import (
	"embed"
	"io/fs"
)

//go:embed core trust nats jetstream receiver
var files embed.FS

// FS is the embedded suite tree; each scenario's suite is its directory.
func FS() fs.FS { return files }

package reporter

import (
	"encoding/json"
	"io"

	"github.com/aghcheck/aghcheck/harness"
)

// writeRunJSON writes the full result model of a run: summary, claims,
// requirements, passive validation and every scenario with its steps and
// exchanged envelopes.
func writeRunJSON(w io.Writer, rep *harness.Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(rep)
}

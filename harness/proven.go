package harness

import (
	_ "embed"
	"sync"

	"gopkg.in/yaml.v3"
)

// proven.yaml is the scenario × fault matrix the mutation test generates
// (docs/mutation.md): for each built-in scenario, the faults of aghcheck
// peer that fail it. Every report cites them (ScenarioResult.ProvenBy), so
// a pass says what it would have caught.
//
//go:embed proven.yaml
var provenYAML []byte

// provenBy is proven.yaml decoded; a broken file is a programming error
// that the mutation test's golden check catches first.
var provenBy = sync.OnceValue(func() map[string][]string {
	out := map[string][]string{}
	if err := yaml.Unmarshal(provenYAML, &out); err != nil {
		panic("harness: proven.yaml: " + err.Error())
	}
	return out
})

package scenario

import (
	"bytes"
	"encoding/json"

	"gopkg.in/yaml.v3"
)

// JSON is the scenario's definition as it is played: a family case with
// its fixture and templates filled in, a written scenario as loaded (its
// comments and layout are not kept), members in the format's order.
func (s *Scenario) JSON() ([]byte, error) {
	return json.MarshalIndent(s, "", "  ")
}

// YAML is JSON as YAML, in the same member order, as a scenario file
// would hold it.
func (s *Scenario) YAML() ([]byte, error) {
	b, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	// JSON is YAML: decoding it into a node keeps the member order that a
	// map would lose.
	var n yaml.Node
	if err := yaml.Unmarshal(b, &n); err != nil {
		return nil, err
	}
	plain(&n)
	dropEmptyRequires(n.Content[0])
	var out bytes.Buffer
	enc := yaml.NewEncoder(&out)
	enc.SetIndent(2)
	if err := enc.Encode(&n); err != nil {
		return nil, err
	}
	return out.Bytes(), enc.Close()
}

// plain drops the flow style and quoting the JSON text gave the nodes, so
// the YAML reads like a hand-written scenario file (an empty object stays
// {}: in an envelope it means something).
func plain(n *yaml.Node) {
	if n.Kind != yaml.MappingNode || len(n.Content) > 0 {
		n.Style &^= yaml.FlowStyle
	}
	n.Style &^= yaml.DoubleQuotedStyle
	for _, c := range n.Content {
		plain(c)
	}
}

// dropEmptyRequires leaves out "requires: {}", which every ungated
// scenario would otherwise show.
func dropEmptyRequires(m *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == "requires" && len(m.Content[i+1].Content) == 0 {
			m.Content = append(m.Content[:i], m.Content[i+2:]...)
			return
		}
	}
}

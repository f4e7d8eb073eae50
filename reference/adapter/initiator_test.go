package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/aghcheck/aghcheck/internal/control"
)

// jsonShape is a struct type's JSON members: name and options, with the Go
// kind of each, recursively for pointers to structs.
func jsonShape(t reflect.Type) []string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var out []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		entry := f.Tag.Get("json") + " " + ft.Kind().String()
		if ft.Kind() == reflect.Struct {
			entry += " {" + strings.Join(jsonShape(ft), ", ") + "}"
		}
		out = append(out, entry)
	}
	return out
}

// The adapter is built inside the runtime's module, so it repeats the
// shapes of aghcheck's internal/control: they must stay the same.
func TestOrderShapesMirrorControl(t *testing.T) {
	if got, want := jsonShape(reflect.TypeOf(order{})), jsonShape(reflect.TypeOf(control.Order{})); !reflect.DeepEqual(got, want) {
		t.Errorf("order's JSON members\n got  %v\n want %v (control.Order)", got, want)
	}
	// control.Request's continue and cancel are two shapes; the adapter's
	// workRef is one with text optional: compare member names.
	names := func(t reflect.Type) []string {
		var out []string
		for i := 0; i < t.NumField(); i++ {
			out = append(out, strings.Split(t.Field(i).Tag.Get("json"), ",")[0])
		}
		return out
	}
	if got, want := names(reflect.TypeOf(controlRequest{})), names(reflect.TypeOf(control.Request{})); !reflect.DeepEqual(got, want) {
		t.Errorf("request members %v, want %v", got, want)
	}
	creq := reflect.TypeOf(control.Request{})
	cont, _ := creq.FieldByName("Continue")
	canc, _ := creq.FieldByName("Cancel")
	if got := names(cont.Type.Elem()); !reflect.DeepEqual(got, []string{"work_id", "text"}) {
		t.Errorf("control.Request.Continue has %v; workRef holds work_id and text", got)
	}
	if got := names(canc.Type.Elem()); !reflect.DeepEqual(got, []string{"work_id"}) {
		t.Errorf("control.Request.Cancel has %v; workRef holds work_id", got)
	}
	if initiateProfile != control.InitiateName {
		t.Errorf("initiateProfile %q, want %q", initiateProfile, control.InitiateName)
	}
}

var orderCases = []string{
	`{"to":"alice.1","kind":"say","surface":"thread"}`,
	`{"to":"alice.1","kind":"say","surface":"direct","text":"t","expires_in":120,"answer":"a","cancel_on":"working"}`,
	`{"to":"alice.1","kind":"capability","surface":"thread","capability":{"id":"c","summary":"s","outcome":"o"},"cancel_on":"needs_input"}`,
	`{}`,
	`{"to":"alice.1","kind":"greet","surface":"room"}`,
	`{"to":"alice.1","kind":"capability","surface":"thread"}`,
	`{"to":"alice.1","kind":"say","surface":"thread","expires_in":3601}`,
	`{"to":"alice.1","kind":"say","surface":"thread","expires_in":-1}`,
	`{"to":"alice.1","kind":"say","surface":"thread","cancel_on":"completed"}`,
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestOrderCheckAgreesWithControl(t *testing.T) {
	for _, c := range orderCases {
		var o order
		var co control.Order
		if err := json.Unmarshal([]byte(c), &o); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(c), &co); err != nil {
			t.Fatal(err)
		}
		if got, want := errText(o.check()), errText(co.Check()); got != want {
			t.Errorf("%s: check() = %q, control says %q", c, got, want)
		}
	}
}

func TestReadOrders(t *testing.T) {
	dir := t.TempDir()
	if got, err := readOrders(""); got != nil || err != nil {
		t.Errorf("readOrders(\"\") = %v, %v; want no orders", got, err)
	}
	good := filepath.Join(dir, "good.json")
	want := []control.Order{
		{To: "alice.1", Kind: "say", Surface: "thread", Answer: "staging"},
		{To: "zz-late.2", Kind: "capability", Surface: "direct", Capability: map[string]any{"id": "c", "summary": "s", "outcome": "o"}, ExpiresIn: 60, CancelOn: "working"},
	}
	if err := control.WriteOrders(good, want); err != nil {
		t.Fatal(err)
	}
	got, err := readOrders(good)
	if err != nil {
		t.Fatal(err)
	}
	gotJSON, _ := json.Marshal(got)
	wantJSON, _ := json.Marshal(want)
	if string(gotJSON) != string(wantJSON) {
		t.Errorf("read %s\nwant %s", gotJSON, wantJSON)
	}
	for name, body := range map[string]string{
		"unknown.json":   `{"orders":[{"to":"a.1","kind":"say","surface":"thread","priority":1}]}`,
		"bad-order.json": `{"orders":[{"to":"a.1","kind":"say","surface":"thread"},{"kind":"say","surface":"room"}]}`,
		"not-json.json":  `orders`,
	} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := readOrders(path)
		_, cerr := control.ReadOrders(path)
		if err == nil || errText(err) != errText(cerr) {
			t.Errorf("%s: readOrders error %q, control.ReadOrders %q", name, errText(err), errText(cerr))
		}
	}
	if _, err := readOrders(filepath.Join(dir, "missing.json")); err == nil || !strings.Contains(err.Error(), "read orders") {
		t.Errorf("a missing file: %v", err)
	}
}

func TestOrdersFor(t *testing.T) {
	orders := []order{{To: "a.1", Kind: "say"}, {To: "b.2", Kind: "say"}, {To: "a.1", Kind: "capability"}}
	got := ordersFor(orders, "a.1")
	if len(got) != 2 || got[0].Kind != "say" || got[1].Kind != "capability" {
		t.Errorf("ordersFor(a.1) = %v", got)
	}
	if got := ordersFor(orders, "c.3"); got != nil {
		t.Errorf("ordersFor(c.3) = %v", got)
	}
}

func TestParseRequest(t *testing.T) {
	good := []struct {
		raw  string
		want string
	}{
		{`{"initiate":{"to":"alice.1","kind":"say","surface":"direct","answer":"staging"}}`, "initiate"},
		{`{"continue":{"work_id":"work_1","text":"more"}}`, "continue"},
		{`{"continue":{"work_id":"work_1"}}`, "continue"},
		{`{"cancel":{"work_id":"work_1"}}`, "cancel"},
	}
	for _, tt := range good {
		req, err := parseRequest(json.RawMessage(tt.raw))
		if err != nil {
			t.Errorf("%s: %v", tt.raw, err)
			continue
		}
		got := ""
		switch {
		case req.Initiate != nil:
			got = "initiate"
		case req.Continue != nil:
			got = "continue"
		case req.Cancel != nil:
			got = "cancel"
		}
		if got != tt.want {
			t.Errorf("%s: read as %q", tt.raw, got)
		}
		// What the harness writes, the adapter reads the same.
		var creq control.Request
		if err := json.Unmarshal([]byte(tt.raw), &creq); err != nil {
			t.Errorf("%s: control.Request: %v", tt.raw, err)
		}
	}
	bad := []struct{ raw, want string }{
		{`null`, "exactly one of"},
		{`[]`, "exactly one of"},
		{`{}`, "exactly one of"},
		{`{"receipt":"accepted"}`, "unknown field"},
		{`{"initiate":{"to":"a.1","kind":"say","surface":"thread"},"cancel":{"work_id":"w"}}`, "exactly one of"},
		{`{"initiate":{"to":"a.1","kind":"say","surface":"room"}}`, `initiate: surface "room"`},
		{`{"initiate":{"to":"a.1","kind":"say","surface":"thread","priority":1}}`, "unknown field"},
		{`{"continue":{"text":"t"}}`, "continue: work_id is required"},
		{`{"cancel":{"work_id":"w","text":"t"}}`, "cancel: want exactly work_id"},
		{`{"cancel":null}`, "exactly one of"},
	}
	for _, tt := range bad {
		_, err := parseRequest(json.RawMessage(tt.raw))
		if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: err = %v, want one line containing %q", tt.raw, err, tt.want)
		}
	}
}

func TestFollow(t *testing.T) {
	answer := order{Answer: "staging"}
	onWorking := order{CancelOn: "working", Answer: "staging"}
	onInput := order{CancelOn: "needs_input", Answer: "staging"}
	tests := []struct {
		name          string
		o             order
		status, state string
		want          followUp
	}{
		{"needs_input answered", answer, "", "needs_input", followContinue},
		{"working read", answer, "", "working", followNone},
		{"accepted read", answer, "accepted", "", followNone},
		{"no answer: needs_input read", order{}, "", "needs_input", followNone},
		{"cancel on an accepted receipt", onWorking, "accepted", "", followCancel},
		{"cancel on a working trace", onWorking, "", "working", followCancel},
		{"cancel_on working still answers needs_input", onWorking, "", "needs_input", followContinue},
		{"cancel on needs_input wins over answer", onInput, "", "needs_input", followCancel},
		{"cancel_on needs_input: working read", onInput, "", "working", followNone},
		{"a refusal is read", onWorking, "rejected", "", followNone},
		{"a terminal trace is read", onInput, "", "completed", followNone},
	}
	for _, tt := range tests {
		if got := follow(tt.o, tt.status, tt.state); got != tt.want {
			t.Errorf("%s: follow = %d, want %d", tt.name, got, tt.want)
		}
	}
}

func TestOrderText(t *testing.T) {
	if got := (order{}).text(); got != defaultOrderText {
		t.Errorf("default text %q", got)
	}
	if got := (order{Text: "Run it"}).text(); got != "Run it" {
		t.Errorf("text %q", got)
	}
	o := order{To: "a.1", Kind: "say", Surface: "direct", ExpiresIn: 60, Answer: "x", CancelOn: "working"}
	if got, want := o.String(), `say to a.1 on a direct, expires_in 60, answer "x", cancel_on working`; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

package reporter

import (
	"bufio"
	"bytes"
	"encoding/xml"
	"path/filepath"
	"testing"

	"github.com/aghcheck/aghcheck/internal/golden"
	"github.com/aghcheck/aghcheck/internal/validate"
)

// The cases spooled to a temporary file make the same document as those
// kept in memory: the golden, byte for byte.
func TestJUnitSpoolsToAFile(t *testing.T) {
	old := spoolInMemory
	spoolInMemory = 64 // the first case already goes to the file
	defer func() { spoolInMemory = old }()
	for _, v := range []struct {
		name string
		o    Options
	}{{"junit", Options{}}, {"junit-strict", Options{Strict: true}}} {
		golden.Check(t, filepath.Join("testdata", v.name+".golden"), render(t, "junit", v.o))
	}
}

// With nothing to report the root is empty, as the encoder writes an
// element without children.
func TestJUnitEmpty(t *testing.T) {
	var b bytes.Buffer
	r, err := Validate.New("junit", &b, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Finish(validate.Summary{}); err != nil {
		t.Fatal(err)
	}
	want := xml.Header + `<testsuites name="aghcheck validate" tests="0" failures="0" errors="0"></testsuites>` + "\n"
	if b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}

// The suite and root elements are written by hand: their attributes are
// escaped exactly as the encoder escapes them, whatever a name holds.
func TestJUnitStartTagEscapesAsTheEncoder(t *testing.T) {
	for _, v := range []string{`plain`, `a"b'c<d>e&f`, "tab\tnl\ncr\r", "nul\x00 esc\x1b bad\xff", "bidi \u202e end"} {
		var enc bytes.Buffer
		e := xml.NewEncoder(&enc)
		if err := e.EncodeToken(xml.StartElement{Name: xml.Name{Local: "testsuite"}, Attr: []xml.Attr{{Name: xml.Name{Local: "name"}, Value: v}}}); err != nil {
			t.Fatal(err)
		}
		if err := e.Flush(); err != nil {
			t.Fatal(err)
		}
		var hand bytes.Buffer
		w := bufio.NewWriter(&hand)
		startTag(w, "", "testsuite", "name", v)
		w.Flush()
		if hand.String() != enc.String() {
			t.Errorf("%q: by hand %q, encoder %q", v, hand.String(), enc.String())
		}
	}
}

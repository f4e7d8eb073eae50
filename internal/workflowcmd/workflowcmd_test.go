package workflowcmd

import "testing"

// A message or title the runner would read as the end of the command, or
// as another property, is escaped: otherwise an input could forge an
// annotation of its own.
func TestAnnotation(t *testing.T) {
	got := Annotation("error", "A,B: c", "50%\nnext::x\r")
	if want := "::error title=A%2CB%3A c::50%25%0Anext::x%0D"; got != want {
		t.Errorf("Annotation = %q, want %q", got, want)
	}
}

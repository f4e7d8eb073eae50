package main

import (
	"os"
	"strings"
	"testing"
)

func TestParseAge(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"300", 300, true}, {"300s", 300, true}, {"5m", 300, true}, {"1h30m", 5400, true},
		{"0", 0, false}, {"-5", 0, false}, {"500ms", 0, false}, {"soon", 0, false}, {"", 0, false},
	} {
		name := tc.in
		if name == "" {
			name = "empty"
		}
		t.Run(name, func(t *testing.T) {
			got, err := parseAge(tc.in)
			if (err == nil) != tc.ok || got != tc.want {
				t.Errorf("parseAge(%q) = %d, %v; want %d, ok=%v", tc.in, got, err, tc.want, tc.ok)
			}
		})
	}
}

func TestParseNow(t *testing.T) {
	if n, err := parseNow(""); n != 0 || err != nil {
		t.Errorf("empty: %d %v", n, err)
	}
	if n, err := parseNow("1776366120"); n != 1776366120 || err != nil {
		t.Errorf("unix: %d %v", n, err)
	}
	if n, err := parseNow("now"); n < 1700000000 || err != nil {
		t.Errorf("now: %d %v", n, err)
	}
	for _, bad := range []string{"yesterday", "-1", "0", "1.5"} {
		t.Run(bad, func(t *testing.T) {
			if _, err := parseNow(bad); err == nil {
				t.Errorf("parseNow(%q) accepted", bad)
			}
		})
	}
}

// The progress line goes to a terminal only: never to a pipe (a CI log,
// `2>&1 | tee`), a buffer, or with --quiet.
func TestValidateProgressOnlyOnTerminal(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if progressTo(w, false) != nil {
		t.Error("progress on a pipe")
	}
	if progressTo(&strings.Builder{}, false) != nil {
		t.Error("progress on a buffer")
	}
	// A character device stands in for the terminal.
	dev, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	if progressTo(dev, false) != dev {
		t.Error("no progress on a character device")
	}
	if progressTo(dev, true) != nil {
		t.Error("progress with --quiet")
	}
}

package main

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

func TestHelpAndWords(t *testing.T) {
	for _, tc := range []struct {
		args     []string
		code     int
		out, err string
	}{
		{[]string{"version"}, 0, "aghcheck version " + version + "\n", ""},
		{[]string{"show"}, exitUsageErr, "", "show needs the id of a scenario"},
		{[]string{"run", "--bogus"}, exitUsageErr, "", "unknown flag: --bogus (see aghcheck run --help)"},
		{[]string{"derive", "route-token", "--x"}, exitUsageErr, "", "(see aghcheck derive route-token --help)"},
		{[]string{"versio"}, exitUsageErr, "", `unknown command "versio" for "aghcheck" (see aghcheck --help)`},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, out, stderr := runCLI(t, "", tc.args...)
			if code != tc.code || (tc.out != "" && out != tc.out) || !strings.Contains(stderr, tc.err) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit %d, %q, %q", code, out, stderr, tc.code, tc.out, tc.err)
			}
		})
	}
}

// No help text stops mid-sentence: every paragraph of every command's long
// help ends a sentence, a list item or an introduction to what follows.
func TestHelpParagraphsEnd(t *testing.T) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, para := range strings.Split(c.Long, "\n\n") {
			para = strings.TrimSpace(para)
			if para == "" || strings.HasPrefix(para, "  ") {
				continue
			}
			last := para[strings.LastIndexByte(para, '\n')+1:]
			if strings.HasPrefix(last, "  ") || strings.HasPrefix(last, "- ") {
				continue // a list or a table
			}
			if !strings.ContainsAny(para[len(para)-1:], ".:)") {
				t.Errorf("%s --help: a paragraph ends mid-sentence: …%s", c.CommandPath(), para[max(0, len(para)-60):])
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRootCmd())
}

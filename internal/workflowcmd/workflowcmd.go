// Package workflowcmd holds the escaping of GitHub Actions workflow
// commands (::error file=...,title=...::message), which the runner turns
// into annotations: the github formats of package reporter and aghcheck
// monitor's stream of annotations escape the same way.
package workflowcmd

import "strings"

// Escaping as the Actions runner expects (toolkit's command.ts).
var (
	dataEscaper     = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")
	propertyEscaper = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")
)

// EscapeData escapes a command's message, after the "::".
func EscapeData(s string) string { return dataEscaper.Replace(s) }

// EscapeProperty escapes a property's value (file=, title=).
func EscapeProperty(s string) string { return propertyEscaper.Replace(s) }

// Annotation renders one workflow command (cmd is "error", "warning" or
// "notice") with a title and a message.
func Annotation(cmd, title, msg string) string {
	return "::" + cmd + " title=" + EscapeProperty(title) + "::" + EscapeData(msg)
}

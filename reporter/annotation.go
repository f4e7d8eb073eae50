package reporter

// Annotation renders one GitHub Actions workflow command (cmd is "error",
// "warning" or "notice") with a title and a message, escaped as the runner
// expects, for writers outside this package that stream annotations
// (aghcheck monitor).
func Annotation(cmd, title, msg string) string {
	return "::" + cmd + " title=" + escapeProperty(title) + "::" + escapeData(msg)
}

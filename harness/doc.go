// Package harness certifies a live implementation under test (IUT) over
// NATS: it starts the broker and the IUT, plays every scenario in parallel
// as isolated test peers, validates passively every envelope the IUT
// publishes with the agh rule engine, and grades the result into the
// conformance claims the IUT earned (package report holds the result).
//
// Options, checked into a Plan, are what aghcheck run and aghtest share:
// a Plan runs, applies its baseline and hands one report to the reporters.
package harness

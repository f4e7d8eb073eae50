// Package harness certifies a live implementation under test (IUT) over
// NATS: it starts the broker and the IUT, plays every scenario in parallel
// as isolated test peers, validates passively every envelope the IUT
// publishes with the agh rule engine, and grades the result into the
// conformance claims the IUT earned (package report holds the result).
//
// Options, checked into a Plan, are what aghcheck run and aghtest share:
// a Plan runs, applies its baseline and hands one report to the reporters.
//
// # Public names
//
// For aghcheck run and aghtest: Options, Plan (and LevelNames, the
// levels a run can claim), Target (with the Default
// durations and DefaultMaxRestarts it takes when left zero), Credentials
// (and the EnvNATS variables it reads), Wait (how the wait for the IUT
// goes), HarnessError and OptionError. For aghcheck fuzz, which plays
// cases in batches of its own making: Session, Open and PlayOptions (a
// batch's result is report.Batch). Nothing else is exported; TestDocMap
// fails for an exported name this list does not give.
//
// # From a YAML scenario to a verdict
//
// The path a maintainer follows, in order (TestDocMap keeps each name and
// file in step with the code):
//
//  1. Options.Plan (options.go): loads the suites (YAML to
//     scenario.Scenario), selects by --run and level, reads the baseline.
//  2. runConfig (run.go), called by Plan.Run: the broker, the IUT and its
//     greet, the gates (profiles, control, initiation) that skip scenarios.
//  3. runner.rounds (blame_rounds.go): plays the scenarios in parallel
//     rounds; a death of the IUT replays the scenarios in flight alone, so
//     that only one that reproducibly kills it is blamed.
//  4. player.step (play.go), under runner.play: one step of one scenario
//     (send, at_once, initiate, expect, expect_silence, wait).
//  5. waiter.expect (expect.go): an expect ends on its match
//     (scenario.Matches) or on an answer that rules it out
//     (waiter.ruledOut, ruleout.go); never on a reply deadline.
//  6. grade (grade.go): scenario outcomes to requirements to claims.
//
// Beside that path: inbox.go routes each message the IUT sends to the
// scenario inboxes it belongs to; publication.go judges each publication
// (the passive verdict and the work-unit tracker); judge_late.go judges
// what arrives after a scenario ended; concurrent.go publishes what an
// at_once step sends and measures the IUT's answers to it; brokerlink.go
// is the harness's broker connection and its outages; liveness.go, iut_conns.go,
// deafness.go and hunt.go watch the IUT and find what killed or deafened
// it; startup.go brings up the broker, the IUT and its greet; target.go
// is what a run is pointed at.
package harness

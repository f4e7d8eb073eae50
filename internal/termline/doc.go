// Package termline holds the lines aghcheck prints on standard error while
// a command works, beside its report: a Line redrawn in place on a
// terminal (New); what a run waits for, redrawn on a terminal (LiveWait,
// LiveWaitOn) or told now and then to a log (LogWait); how far a long
// validate has got (ProgressLine of a ValidateProgress); and each death or
// return of the IUT as it happens (LifeLines, which the run's text report
// repeats).
package termline

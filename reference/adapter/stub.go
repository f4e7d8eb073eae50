package main

import "context"

// run, in a build without the runtime (any build of aghcheck's own module),
// only says how to get the real one: runtime.go replaces this file in the
// copy scripts/reference.sh builds.
func run(context.Context, config) error { return errNoRuntime }

// haveRuntime says whether this build holds the runtime (runtime.go) or
// only this stub.
const haveRuntime = false

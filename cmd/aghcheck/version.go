package main

import "github.com/aghcheck/aghcheck/internal/buildinfo"

// version is what --version and every report print (see buildinfo).
var version = buildinfo.Version()

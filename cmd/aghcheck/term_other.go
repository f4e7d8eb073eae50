//go:build !unix

package main

import "os"

// terminalColumns is unknown here: callers fall back to $COLUMNS or 80.
func terminalColumns(*os.File) int { return 0 }

// Package contrib holds the tests of the contributor's tooling, which make
// test runs like any other: every Makefile target runs (make_test.go), and
// every recipe of CONTRIBUTING.md holds when applied to a copy of the tree
// (recipes_test.go). It has no code of its own.
package contrib

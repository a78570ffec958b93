// Package archtest holds the tests that keep docs/architecture.md true: every
// row of its index names a file that exists and a function that file
// declares, the root package does no I/O, and no package below the HTTP
// layer imports net/http. It has no code of its own.
package archtest

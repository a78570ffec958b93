// Package golden records what parcelgate answers: a fixed script of
// requests across every surface (the gateway, the shipping API, the
// Tracking API, the ecom APIs, the operator API, the console), sent to an
// in-process server on each engine with a fixed environment clock and the
// demo seed, and written, status, headers and body, to one golden file per
// engine under testdata. A restructuring that keeps every behaviour keeps
// these files byte for byte (issue 38, "Done means").
//
//	go test ./internal/tools/golden            # compare, print the first differences
//	go test ./internal/tools/golden -update    # rewrite the files
//
// It is a test tool, not a production package: it holds no code the
// server runs, only this package's test, and sits in internal/ beside the
// other test tools (apitest, archtest) because it starts the server
// through internal/inproc and needs the console and the store that only
// this module may reach.
package golden

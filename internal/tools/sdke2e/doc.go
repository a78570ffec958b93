// Package sdke2e holds the end-to-end tests and runnable examples of the Go
// SDK (module github.com/parcelgate/parcelgate/client) against a real
// parcelgate server in the same process. They live in the server's module
// because they need its internal packages; the SDK's own module depends on
// nothing but golang.org/x/oauth2, so "go get" of the SDK adds only that.
package sdke2e

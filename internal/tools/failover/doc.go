// Package failover holds the tests of parcelgate losing its PostgreSQL
// primary under load, in every way a primary goes, with a real HA manager
// (pg_auto_failover: a monitor and two nodes with a synchronous standby,
// started on local ports by the tests) and two parcelgate instances given
// the formation's multi-host URL (docs/scaling.md, Automatic failover).
// The tests skip, with a NOTE naming the install command, where
// pg_auto_failover is not installed, and fail under CI.
package failover

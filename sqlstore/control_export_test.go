package sqlstore

// BreakResetForTest makes the last step of a reset (the products'
// retirement) fail until the returned function is called, so a test can
// see a reset fail after the other tables were emptied.
func BreakResetForTest() (restore func()) {
	saved := resetBatchSQL[7]
	resetBatchSQL[7] = struct{ table, sql string }{"products", `UPDATE no_such_table SET a = ?, b = ? WHERE c = ? AND d = ?`}
	return func() { resetBatchSQL[7] = saved }
}

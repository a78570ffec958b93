package sqlstore

// BreakResetForTest appends a table whose removal fails to the tenant
// tables until the returned function is called, so a test can see a reset
// fail after the other tables were emptied.
func BreakResetForTest() (restore func()) {
	saved := tenantTables
	tenantTables = append([]tenantTable{{name: "no_such_table", scope: "org_id = ?"}}, saved...)
	return func() { tenantTables = saved }
}

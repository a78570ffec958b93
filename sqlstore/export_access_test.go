package sqlstore

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/parcelgate/parcelgate"
)

// WrittenForTest writes out every row of the tables (of every table of
// the schema when none is named), each table's rows sorted: two equal
// answers around a refused call show it wrote nothing there, whichever
// column it would have touched.
func (db *DB) WrittenForTest(ctx context.Context, tables ...string) (string, error) {
	if len(tables) == 0 {
		q := `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`
		if db.dialect.name == postgresDialect.name {
			q = `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`
		}
		var err error
		if tables, err = db.column(ctx, q); err != nil {
			return "", err
		}
		slices.Sort(tables)
	}
	var b strings.Builder
	for _, t := range tables {
		rows, err := db.query(ctx, `SELECT * FROM `+t)
		if err != nil {
			return "", fmt.Errorf("%s: %w", t, err)
		}
		cols, err := rows.Columns()
		if err != nil {
			rows.Close()
			return "", err
		}
		var lines []string
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				rows.Close()
				return "", err
			}
			for i, v := range vals {
				if raw, ok := v.([]byte); ok {
					vals[i] = string(raw)
				}
			}
			lines = append(lines, fmt.Sprint(vals))
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return "", err
		}
		slices.Sort(lines)
		fmt.Fprintf(&b, "%s (%d rows):\n%s\n", t, len(lines), strings.Join(lines, "\n"))
	}
	return b.String(), nil
}

// column reads the one column q selects.
func (db *DB) column(ctx context.Context, q string) ([]string, error) {
	rows, err := db.query(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// OrgIDForTest returns the internal ID of the organization businessID of
// env (normalized as stored), without the organization service, so that
// a test of another service names its tenants whatever that service asks.
func (db *DB) OrgIDForTest(ctx context.Context, env parcelgate.Environment, businessID string) (int64, error) {
	var id int64
	err := db.queryRow(ctx, `SELECT id FROM organizations WHERE environment = ? AND business_id = ?`, string(env), businessID).Scan(&id)
	return id, err
}

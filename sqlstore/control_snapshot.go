package sqlstore

import (
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/parcelgate/parcelgate"
)

// tableData is one table's saved rows. Kinds keeps each column's value
// type ("int", "float", "text", "bytes"), which JSON alone would lose.
type tableData struct {
	Columns []string `json:"columns"`
	Kinds   []string `json:"kinds"`
	Rows    [][]any  `json:"rows"`
}

// TakeSnapshot saves the data of one organization of env under name,
// replacing a snapshot of that name. It reads in one transaction, so the
// copy is consistent.
func (s *ControlService) TakeSnapshot(ctx context.Context, c *parcelgate.Caller, name string) (*parcelgate.Snapshot, error) {
	if err := c.May(parcelgate.ActionOperate); err != nil {
		return nil, err
	}
	if err := parcelgate.ValidSnapshotName(name); err != nil {
		return nil, err
	}
	env, org := c.Environment, operatorOrg(c)
	snap := &parcelgate.Snapshot{Name: name, Environment: env, BusinessID: org.BusinessID, CreatedAt: s.db.clock.Now(env).UTC().Truncate(time.Microsecond)}
	err := s.db.inTx(ctx, func(tx *Tx) error {
		snap.Tables, snap.Objects = map[string]int64{}, 0
		if err := dropSnapshot(ctx, tx, org.ID, name); err != nil && parcelgate.ErrorCode(err) != parcelgate.ENOTFOUND {
			return err
		}
		var id int64
		if err := tx.QueryRow(ctx, `INSERT INTO snapshots (org_id, name, created_at, objects) VALUES (?, ?, ?, 0) RETURNING id`,
			org.ID, name, micros(snap.CreatedAt)).Scan(&id); err != nil {
			return err
		}
		for _, t := range tenantTables {
			data, err := readTable(ctx, tx, t, org.ID)
			if err != nil {
				return fmt.Errorf("snapshot %s: %w", t.name, err)
			}
			raw, err := json.Marshal(data)
			if err != nil {
				return err
			}
			n := int64(len(data.Rows))
			if _, err := tx.Exec(ctx, `INSERT INTO snapshot_tables (snapshot_id, table_name, row_count, data) VALUES (?, ?, ?, ?)`, id, t.name, n, string(raw)); err != nil {
				return err
			}
			snap.Tables[t.name] = n
			snap.Objects += n
		}
		_, err := tx.Exec(ctx, `UPDATE snapshots SET objects = ? WHERE id = ?`, snap.Objects, id)
		return err
	})
	if err != nil {
		return nil, err
	}
	return snap, nil
}

// readTable reads the organization's rows of t, every column.
func readTable(ctx context.Context, tx *Tx, t tenantTable, orgID int64) (*tableData, error) {
	rows, err := tx.Query(ctx, `SELECT * FROM `+t.name+` WHERE `+t.scope, orgID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	data := &tableData{Columns: cols, Kinds: make([]string, len(cols)), Rows: [][]any{}}
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		for i, v := range vals {
			kind := ""
			switch v.(type) {
			case int64:
				kind = "int"
			case float64:
				kind = "float"
			case string:
				kind = "text"
			case []byte:
				kind = "bytes"
			case nil:
			default:
				return nil, fmt.Errorf("column %s: unexpected %T", cols[i], v)
			}
			if kind != "" {
				if data.Kinds[i] != "" && data.Kinds[i] != kind {
					// SQLite columns are loosely typed; text wins.
					if kind == "text" || data.Kinds[i] == "text" {
						kind = "text"
					}
				}
				data.Kinds[i] = kind
			}
		}
		data.Rows = append(data.Rows, vals)
	}
	return data, rows.Err()
}

// ListSnapshots lists the snapshots of one organization of env, by name.
func (s *ControlService) ListSnapshots(ctx context.Context, c *parcelgate.Caller) ([]*parcelgate.Snapshot, error) {
	if err := c.May(parcelgate.ActionOperate); err != nil {
		return nil, err
	}
	env, org := c.Environment, operatorOrg(c)
	rows, err := s.db.query(ctx, `SELECT s.name, s.created_at, s.objects, t.table_name, t.row_count FROM snapshots s JOIN snapshot_tables t ON t.snapshot_id = s.id
		WHERE s.org_id = ? ORDER BY s.name, t.table_name`, org.ID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*parcelgate.Snapshot{}
	for rows.Next() {
		var name, table string
		var created, objects, n int64
		if err := rows.Scan(&name, &created, &objects, &table, &n); err != nil {
			return nil, err
		}
		if len(out) == 0 || out[len(out)-1].Name != name {
			out = append(out, &parcelgate.Snapshot{Name: name, Environment: env, BusinessID: org.BusinessID, CreatedAt: fromMicros(created), Objects: objects, Tables: map[string]int64{}})
		}
		out[len(out)-1].Tables[table] = n
	}
	return out, rows.Err()
}

// DropSnapshot deletes a snapshot.
func (s *ControlService) DropSnapshot(ctx context.Context, c *parcelgate.Caller, name string) error {
	if err := c.May(parcelgate.ActionOperate); err != nil {
		return err
	}
	org := operatorOrg(c)
	return s.db.inTx(ctx, func(tx *Tx) error { return dropSnapshot(ctx, tx, org.ID, name) })
}

func dropSnapshot(ctx context.Context, tx *Tx, orgID int64, name string) error {
	var id int64
	err := tx.QueryRow(ctx, `SELECT id FROM snapshots WHERE org_id = ? AND name = ?`, orgID, name).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return snapshotNotFound(name)
	}
	if err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `DELETE FROM snapshot_tables WHERE snapshot_id = ?`, id); err != nil {
		return err
	}
	_, err = tx.Exec(ctx, `DELETE FROM snapshots WHERE id = ?`, id)
	return err
}

func snapshotNotFound(name string) error {
	return parcelgate.Errorf(parcelgate.ENOTFOUND, "No snapshot named %q.", name)
}

// RestoreSnapshot puts the organization's data back as the snapshot saved
// it, in one transaction: its data is reset (see ResetOrganization), then
// the saved rows are written back. Every restored order, product and
// balance takes a new change stamp, so a poller whose cursor moved past the
// saved stamps sees them again as changes, never a rewind. Rows keep their
// IDs. Stock that restored open orders held on another organization's
// balances is taken again, as far as those balances have it.
func (s *ControlService) RestoreSnapshot(ctx context.Context, c *parcelgate.Caller, name string) (*parcelgate.RestoreResult, error) {
	if err := c.May(parcelgate.ActionOperate); err != nil {
		return nil, err
	}
	env, org := c.Environment, operatorOrg(c)
	start := time.Now()
	res := &parcelgate.RestoreResult{Snapshot: name}
	err := s.db.inTx(ctx, func(tx *Tx) error {
		*res = parcelgate.RestoreResult{Environment: env, BusinessID: org.BusinessID, Snapshot: name, Restored: map[string]int64{}}
		var id int64
		err := tx.QueryRow(ctx, `SELECT id FROM snapshots WHERE org_id = ? AND name = ?`, org.ID, name).Scan(&id)
		if errors.Is(err, sql.ErrNoRows) {
			return snapshotNotFound(name)
		}
		if err != nil {
			return err
		}
		saved := map[string]*tableData{}
		rows, err := tx.Query(ctx, `SELECT table_name, data FROM snapshot_tables WHERE snapshot_id = ?`, id)
		if err != nil {
			return err
		}
		for rows.Next() {
			var table, raw string
			if err := rows.Scan(&table, &raw); err != nil {
				rows.Close()
				return err
			}
			data, err := decodeTable(raw)
			if err != nil {
				rows.Close()
				return fmt.Errorf("snapshot %s, table %s: %w", name, table, err)
			}
			saved[table] = data
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		stamp, err := nextStamp(ctx, tx, env)
		if err != nil {
			return err
		}
		res.Stamp = stamp
		if err := resetOrg(ctx, tx, org.ID, stamp, parcelgate.ResetOptions{}, &parcelgate.ResetResult{}); err != nil {
			return err
		}
		for _, t := range tenantTables {
			data := saved[t.name]
			if data == nil || len(data.Rows) == 0 {
				continue
			}
			written, skipped, err := writeTable(ctx, tx, t, data, stamp)
			if err != nil {
				return fmt.Errorf("restore %s: %w", t.name, err)
			}
			res.Restored[t.name] = written
			if skipped > 0 {
				if res.Skipped == nil {
					res.Skipped = map[string]int64{}
				}
				res.Skipped[t.name] = skipped
			}
		}
		return retakeHeldStock(ctx, tx, org.ID, stamp)
	})
	res.ElapsedMs = float64(time.Since(start).Microseconds()) / 1000
	if err != nil {
		return nil, err
	}
	return res, nil
}

// decodeTable reads a saved table back with each value in its column's Go
// type.
func decodeTable(raw string) (*tableData, error) {
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.UseNumber()
	var data tableData
	if err := dec.Decode(&data); err != nil {
		return nil, err
	}
	for _, row := range data.Rows {
		if len(row) != len(data.Columns) {
			return nil, errors.New("a row does not match the columns")
		}
		for i, v := range row {
			if v == nil {
				continue
			}
			switch data.Kinds[i] {
			case "int":
				n, err := strconv.ParseInt(fmt.Sprint(v), 10, 64)
				if err != nil {
					return nil, fmt.Errorf("column %s: %w", data.Columns[i], err)
				}
				row[i] = n
			case "float":
				f, err := strconv.ParseFloat(fmt.Sprint(v), 64)
				if err != nil {
					return nil, fmt.Errorf("column %s: %w", data.Columns[i], err)
				}
				row[i] = f
			case "bytes":
				s, _ := v.(string)
				b, err := base64.StdEncoding.DecodeString(s)
				if err != nil {
					return nil, fmt.Errorf("column %s: %w", data.Columns[i], err)
				}
				row[i] = b
			default:
				row[i] = fmt.Sprint(v)
			}
		}
	}
	return &data, nil
}

// writeTable writes saved rows back: kept tables over their rows by id,
// the others as new rows. The stamp column takes stamp. It returns how
// many rows it wrote and how many it skipped (see tenantTable).
func writeTable(ctx context.Context, tx *Tx, t tenantTable, data *tableData, stamp time.Time) (written, skipped int64, err error) {
	rows := data.Rows
	if t.parent != "" {
		col, parent, _ := strings.Cut(t.parent, " ")
		if rows, err = withParent(ctx, tx, data, col, parent); err != nil {
			return 0, 0, err
		}
		skipped = int64(len(data.Rows) - len(rows))
	}
	if i := colIndex(data.Columns, t.stamp); i >= 0 {
		for _, row := range rows {
			row[i] = micros(stamp)
		}
	}
	cols := strings.Join(data.Columns, ", ")
	var conflict string
	switch {
	case t.kept:
		var set []string
		for _, c := range data.Columns {
			if c != "id" {
				set = append(set, c+" = excluded."+c)
			}
		}
		conflict = ` ON CONFLICT (id) DO UPDATE SET ` + strings.Join(set, ", ")
	case t.shared:
		conflict = ` ON CONFLICT DO NOTHING`
	}
	per := max(1, maxParams/len(data.Columns))
	for len(rows) > 0 {
		chunk := rows[:min(per, len(rows))]
		rows = rows[len(chunk):]
		args := make([]any, 0, len(chunk)*len(data.Columns))
		for _, row := range chunk {
			args = append(args, row...)
		}
		n, err := rowsAffected(tx.Exec(ctx, `INSERT INTO `+t.name+` (`+cols+`) VALUES `+valueRows(len(chunk), placeholders(len(data.Columns)))+conflict, args...))
		if err != nil {
			return written, skipped, err
		}
		written += n
		skipped += int64(len(chunk)) - n
	}
	return written, skipped, nil
}

// withParent keeps the rows whose parent (column col, a row of table
// parent) still exists.
func withParent(ctx context.Context, tx *Tx, data *tableData, col, parent string) ([][]any, error) {
	i := colIndex(data.Columns, col)
	if i < 0 {
		return data.Rows, nil
	}
	ids := map[int64]bool{}
	for _, row := range data.Rows {
		if id, ok := row[i].(int64); ok {
			ids[id] = false
		}
	}
	keys := make([]any, 0, len(ids))
	for k := range ids {
		keys = append(keys, k)
	}
	for len(keys) > 0 {
		chunk := keys[:min(1000, len(keys))]
		keys = keys[len(chunk):]
		found, err := scanColumn[int64](tx.Query(ctx, `SELECT id FROM `+parent+` WHERE id IN (`+placeholders(len(chunk))+`)`, chunk...))
		if err != nil {
			return nil, err
		}
		for _, id := range found {
			ids[id] = true
		}
	}
	var out [][]any
	for _, row := range data.Rows {
		if id, ok := row[i].(int64); ok && ids[id] {
			out = append(out, row)
		}
	}
	return out, nil
}

func colIndex(cols []string, name string) int {
	for i, c := range cols {
		if c == name && name != "" {
			return i
		}
	}
	return -1
}

// retakeHeldStock takes again, from balances of other organizations, the
// stock that the restored allocated orders hold: the reset before the
// restore gave it back (releaseHeldStock). The organization's own balances
// were restored with their allocations and are left alone. A balance that
// no longer has the stock gives what it has.
func retakeHeldStock(ctx context.Context, tx *Tx, orgID int64, stamp time.Time) error {
	holds, levels, err := heldStock(ctx, tx, `SELECT r.balance_id, SUM(r.quantity) AS units, r.balance_id AS ord FROM order_rows r JOIN orders o ON o.id = r.order_pk JOIN balances b ON b.id = r.balance_id
		WHERE o.org_id = ? AND o.allocated = 1 AND b.supplier_org_id <> ? GROUP BY r.balance_id`, []any{orgID, orgID})
	if err != nil {
		return err
	}
	return applyStockMoves(ctx, tx, parcelgate.RetakeHolds(levels, holds), stamp)
}

// RestoreEverywhere restores the snapshot called name of every
// organization in c's scope that has one (every environment's for
// AllOperator()), each in its own transaction (see
// RestoreSnapshot). The demo's seeded state is restored this way. Only a
// caller that may ActionOperate; each organization is restored by the
// operator on that organization, within c's scope.
func (s *ControlService) RestoreEverywhere(ctx context.Context, c *parcelgate.Caller, name string) ([]*parcelgate.RestoreResult, error) {
	if err := c.May(parcelgate.ActionOperate); err != nil {
		return nil, err
	}
	var scope filterSQL
	scope.tenant(c, "o.environment", "o.id")
	rows, err := s.db.query(ctx, `SELECT `+orgColumnsOf("o")+` FROM snapshots s JOIN organizations o ON o.id = s.org_id WHERE s.name = ? AND `+scope.sql()+` ORDER BY o.environment, o.business_id`,
		append([]any{name}, scope.args...)...)
	if err != nil {
		return nil, err
	}
	var orgs []*parcelgate.Organization
	for rows.Next() {
		o, err := scanOrganization(rows)
		if err != nil {
			rows.Close()
			return nil, err
		}
		orgs = append(orgs, o)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := []*parcelgate.RestoreResult{}
	for _, org := range orgs {
		res, err := s.RestoreSnapshot(ctx, parcelgate.OperatorCaller(org), name)
		if err != nil {
			return out, fmt.Errorf("%s %s: %w", org.Environment, org.BusinessID, err)
		}
		res.Environment, res.BusinessID = org.Environment, org.BusinessID
		out = append(out, res)
	}
	return out, nil
}

// operatorOrg is the organization an operator's caller acts in, as the
// snapshot and reset code names it.
func operatorOrg(c *parcelgate.Caller) *parcelgate.Organization {
	return &parcelgate.Organization{ID: c.OrgID, BusinessID: c.BusinessID, Environment: c.Environment}
}

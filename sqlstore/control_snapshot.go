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

// TakeSnapshot saves the data of c's organization under name, replacing
// a snapshot of that name, as a job (StartSnapshot) waited for until it
// ends.
func (s *ControlService) TakeSnapshot(ctx context.Context, c *parcelgate.Caller, name string) (*parcelgate.Snapshot, error) {
	j, err := s.StartSnapshot(ctx, c, name)
	if err == nil {
		j, err = s.await(ctx, c, j)
	}
	if err != nil {
		return nil, err
	}
	return j.Saved, nil
}

// StartSnapshot starts saving the data of c's organization under name as
// a job. The rows are read in one read transaction (one consistent state,
// whatever writes go on meanwhile) and stored in chunks of at most
// JobLimits.BatchRows rows, a few chunks per write transaction, under a
// name no snapshot has; the snapshot takes its name, replacing one of that
// name, in the job's last transaction. Only a caller that may
// ActionOperate.
func (s *ControlService) StartSnapshot(ctx context.Context, c *parcelgate.Caller, name string) (*parcelgate.Job, error) {
	if err := c.May(parcelgate.ActionOperate); err != nil {
		return nil, err
	}
	if err := parcelgate.ValidSnapshotName(name); err != nil {
		return nil, err
	}
	org := operatorOrg(c)
	return s.startJob(ctx, &jobRow{Kind: string(parcelgate.JobSnapshot), Env: string(org.Environment), OrgID: org.ID, BusinessID: org.BusinessID, Snapshot: name})
}

// savedChunk is one chunk of a table's saved rows, encoded.
type savedChunk struct {
	table string
	seq   int
	rows  int64
	data  string
}

// snapshot runs a snapshot job. A resumed one starts over: its consistent
// read was its first holder's.
func (r *jobRun) snapshot(ctx context.Context) error {
	db, orgID, name := r.jr.db, r.row.OrgID, r.row.Snapshot
	// Snapshots of the organization left unfinished (a job that failed or
	// was taken over, a replaced or dropped one not yet purged) have
	// nobody's job on them: the organization has this one open only.
	hidden, err := scanColumn[int64](db.query(ctx, `SELECT id FROM snapshots WHERE org_id = ? AND ready = 0`, orgID))
	if err != nil {
		return err
	}
	for _, id := range hidden {
		if err := purgeSnapshot(ctx, db, id); err != nil {
			return err
		}
	}
	created := db.clock.Now(parcelgate.Environment(r.row.Env)).UTC().Truncate(time.Microsecond)
	// The snapshot's row is written with its first chunks (a small
	// tenant's snapshot is then one write transaction).
	r.p.Phase, r.p.Tables, r.p.SnapshotID = "read", nil, 0
	for _, t := range tenantTables {
		r.p.Tables = append(r.p.Tables, parcelgate.JobTable{Name: t.name})
	}
	var pending []savedChunk
	var pendingRows int64
	flush := func(finish bool) (bool, error) {
		return r.batch(ctx, func(tx *Tx, p *jobProgress) (bool, any, error) {
			if p.SnapshotID == 0 {
				if err := tx.QueryRow(ctx, `INSERT INTO snapshots (org_id, name, created_at, objects, ready) VALUES (?, ?, ?, 0, 0) RETURNING id`,
					orgID, name+"~"+r.row.ID, micros(created)).Scan(&p.SnapshotID); err != nil {
					return false, nil, err
				}
			}
			for _, c := range pending {
				if _, err := tx.Exec(ctx, `INSERT INTO snapshot_chunks (snapshot_id, table_name, seq, row_count, data) VALUES (?, ?, ?, ?, ?)`,
					p.SnapshotID, c.table, c.seq, c.rows, c.data); err != nil {
					return false, nil, err
				}
				p.Tables = addDone(p.Tables, c.table, c.rows)
			}
			if !finish {
				return false, nil, nil
			}
			snap, err := finishSnapshot(ctx, tx, p, orgID, name, r.row.BusinessID, parcelgate.Environment(r.row.Env), created)
			return true, snap, err
		})
	}
	batchRows := int64(r.lim.batchRows())
	err = db.primary().readTx(ctx, func(rd reader) error {
		// Every table's total first, in one statement of the read's
		// snapshot: the progress's "of".
		scopes := make([]struct{ name, live string }, len(tenantTables))
		for i, t := range tenantTables {
			scopes[i].name, scopes[i].live = t.name, t.scope
		}
		q, args := countSQL(scopes, orgID, -1)
		totals := make([]int64, len(tenantTables))
		ptrs := make([]any, len(totals))
		for i := range totals {
			ptrs[i] = &totals[i]
		}
		if err := rd.QueryRow(ctx, q, args...).Scan(ptrs...); err != nil {
			return fmt.Errorf("snapshot: count: %w", err)
		}
		for i, t := range tenantTables {
			r.p.Tables[i].Total = &totals[i]
			seq := 0
			err := readChunks(ctx, rd, t, orgID, int(batchRows), func(data *tableData) error {
				raw, err := json.Marshal(data)
				if err != nil {
					return err
				}
				pending = append(pending, savedChunk{table: t.name, seq: seq, rows: int64(len(data.Rows)), data: string(raw)})
				seq++
				pendingRows += int64(len(data.Rows))
				if pendingRows < int64(r.size) {
					return nil
				}
				_, err = flush(false)
				pending, pendingRows = nil, 0
				return err
			})
			if err != nil {
				return fmt.Errorf("snapshot %s: %w", t.name, err)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	_, err = flush(true)
	if err != nil {
		return err
	}
	// The snapshot it replaced, hidden by finishSnapshot, goes now.
	if r.p.Skipped != nil {
		for _, id := range r.p.Skipped {
			purgeSnapshot(ctx, db, id)
		}
	}
	return nil
}

// finishSnapshot gives the snapshot being taken its name, with its
// counts, in the job's last transaction; the one it replaces is hidden
// (purged after, in batches: see purgeSnapshot), recorded in
// p.Skipped["replaced"].
func finishSnapshot(ctx context.Context, tx *Tx, p *jobProgress, orgID int64, name, businessID string, env parcelgate.Environment, created time.Time) (*parcelgate.Snapshot, error) {
	snap := &parcelgate.Snapshot{Name: name, Environment: env, BusinessID: businessID, CreatedAt: created, Tables: map[string]int64{}}
	for _, t := range p.Tables {
		if _, err := tx.Exec(ctx, `INSERT INTO snapshot_tables (snapshot_id, table_name, row_count, data) VALUES (?, ?, ?, '')`, p.SnapshotID, t.Name, t.Done); err != nil {
			return nil, err
		}
		snap.Tables[t.Name] = t.Done
		snap.Objects += t.Done
	}
	var old int64
	err := tx.QueryRow(ctx, `SELECT id FROM snapshots WHERE org_id = ? AND name = ?`, orgID, name).Scan(&old)
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return nil, err
	default:
		if err := hideSnapshot(ctx, tx, old); err != nil {
			return nil, err
		}
		p.Skipped = map[string]int64{"replaced": old}
	}
	_, err = tx.Exec(ctx, `UPDATE snapshots SET name = ?, objects = ?, ready = 1 WHERE id = ?`, name, snap.Objects, p.SnapshotID)
	return snap, err
}

// hideSnapshot takes a snapshot out of every list and lookup, and frees
// its name, before it is purged.
func hideSnapshot(ctx context.Context, tx *Tx, id int64) error {
	_, err := tx.Exec(ctx, `UPDATE snapshots SET ready = 0, name = ? WHERE id = ?`, fmt.Sprintf("~dropped~%d", id), id)
	return err
}

// purgeSnapshot deletes a hidden snapshot: its chunks a few at a time,
// each statement its own transaction, then its row.
func purgeSnapshot(ctx context.Context, db *DB, id int64) error {
	for {
		n, err := rowsAffected(db.exec(ctx, `DELETE FROM snapshot_chunks WHERE snapshot_id = ? AND seq IN (SELECT seq FROM snapshot_chunks WHERE snapshot_id = ? ORDER BY seq LIMIT 20)`, id, id))
		if err != nil {
			return err
		}
		if n == 0 {
			break
		}
	}
	return db.inTx(ctx, func(tx *Tx) error {
		if _, err := tx.Exec(ctx, `DELETE FROM snapshot_tables WHERE snapshot_id = ?`, id); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `DELETE FROM snapshots WHERE id = ? AND ready = 0`, id)
		return err
	})
}

// readChunks reads the organization's rows of t, every column, and hands
// them to emit in chunks of at most n rows. Each chunk keeps each column's
// value kind.
func readChunks(ctx context.Context, rd reader, t tenantTable, orgID int64, n int, emit func(*tableData) error) error {
	rows, err := rd.Query(ctx, `SELECT * FROM `+t.name+` WHERE `+t.scope, orgID)
	if err != nil {
		return err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return err
	}
	fresh := func() *tableData {
		return &tableData{Columns: cols, Kinds: make([]string, len(cols)), Rows: make([][]any, 0, n)}
	}
	data := fresh()
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return err
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
				return fmt.Errorf("column %s: unexpected %T", cols[i], v)
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
		if len(data.Rows) == n {
			if err := emit(data); err != nil {
				return err
			}
			data = fresh()
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if len(data.Rows) > 0 {
		return emit(data)
	}
	return nil
}

// ListSnapshots lists the snapshots of one organization of env, by name.
func (s *ControlService) ListSnapshots(ctx context.Context, c *parcelgate.Caller) ([]*parcelgate.Snapshot, error) {
	if err := c.May(parcelgate.ActionOperate); err != nil {
		return nil, err
	}
	env, org := c.Environment, operatorOrg(c)
	rows, err := s.db.query(ctx, `SELECT s.name, s.created_at, s.objects, t.table_name, t.row_count FROM snapshots s JOIN snapshot_tables t ON t.snapshot_id = s.id
		WHERE s.org_id = ? AND s.ready = 1 ORDER BY s.name, t.table_name`, org.ID)
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

// DropSnapshot deletes a snapshot of c's organization: hidden at once,
// its chunks purged after in batches. ECONFLICT while a job of the
// organization is open (a restore may be reading it).
func (s *ControlService) DropSnapshot(ctx context.Context, c *parcelgate.Caller, name string) error {
	if err := c.May(parcelgate.ActionOperate); err != nil {
		return err
	}
	org := operatorOrg(c)
	var id int64
	err := s.db.inTx(ctx, func(tx *Tx) error {
		err := tx.QueryRow(ctx, `SELECT id FROM snapshots WHERE org_id = ? AND name = ? AND ready = 1`, org.ID, name).Scan(&id)
		if errors.Is(err, sql.ErrNoRows) {
			return snapshotNotFound(name)
		}
		if err != nil {
			return err
		}
		var busy string
		err = tx.QueryRow(ctx, `SELECT id FROM operator_jobs WHERE environment = ? AND org_id = ? AND state IN ('queued', 'running') LIMIT 1`, string(org.Environment), org.ID).Scan(&busy)
		if err == nil {
			return parcelgate.Errorf(parcelgate.ECONFLICT, "Job %s is running on this organization; drop the snapshot when it has ended.", busy)
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		return hideSnapshot(ctx, tx, id)
	})
	if err != nil {
		return err
	}
	// Hidden, it is gone for every reader; a purge cut short is finished by
	// the organization's next snapshot job.
	purgeSnapshot(context.WithoutCancel(ctx), s.db, id)
	return nil
}

func snapshotNotFound(name string) error {
	return parcelgate.Errorf(parcelgate.ENOTFOUND, "No snapshot named %q.", name)
}

// RestoreSnapshot puts the organization's data back as the snapshot saved
// it, as a job (StartRestore) waited for until it ends.
func (s *ControlService) RestoreSnapshot(ctx context.Context, c *parcelgate.Caller, name string) (*parcelgate.RestoreResult, error) {
	j, err := s.StartRestore(ctx, c, name)
	if err == nil {
		j, err = s.await(ctx, c, j)
	}
	if err != nil {
		return nil, err
	}
	return j.Restored, nil
}

// StartRestore starts putting the organization's data back as snapshot
// name saved it, as a job: its data is reset (see StartReset), then the
// saved rows are written back, a chunk per transaction. Every restored
// order, product and balance takes a new change stamp, so a poller whose
// cursor moved past the saved stamps sees them again as changes, never a
// rewind. Rows keep their IDs. Stock that restored open orders held on
// another organization's balances is taken again, as far as those
// balances have it. A small organization and snapshot are restored in one
// transaction; a bigger one fenced (its API answers 503 until the job
// ends). ENOTFOUND without such a snapshot.
func (s *ControlService) StartRestore(ctx context.Context, c *parcelgate.Caller, name string) (*parcelgate.Job, error) {
	if err := c.May(parcelgate.ActionOperate); err != nil {
		return nil, err
	}
	org := operatorOrg(c)
	var id int64
	err := s.db.queryRow(ctx, `SELECT id FROM snapshots WHERE org_id = ? AND name = ? AND ready = 1`, org.ID, name).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, snapshotNotFound(name)
	}
	if err != nil {
		return nil, err
	}
	return s.startJob(ctx, &jobRow{Kind: string(parcelgate.JobRestore), Env: string(org.Environment), OrgID: org.ID, BusinessID: org.BusinessID, Snapshot: name,
		Progress: jobProgress{SnapshotID: id}})
}

// planRestore reads the snapshot's counts and the reset's, and decides
// whether both fit one transaction.
func (r *jobRun) planRestore(ctx context.Context) error {
	p := r.p
	rows, err := r.jr.db.query(ctx, `SELECT table_name, row_count FROM snapshot_tables WHERE snapshot_id = ?`, p.SnapshotID)
	if err != nil {
		return err
	}
	saved := map[string]int64{}
	for rows.Next() {
		var t string
		var n int64
		if err := rows.Scan(&t, &n); err != nil {
			rows.Close()
			return err
		}
		saved[t] = n
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if len(saved) == 0 {
		// Dropped since the job was started.
		return snapshotNotFound(r.row.Snapshot)
	}
	var objects int64
	p.Tables = nil
	for _, t := range tenantTables {
		n := saved[t.name]
		p.Tables = append(p.Tables, parcelgate.JobTable{Name: t.name, Total: &n})
		objects += n
	}
	return r.planReset(ctx, r.row.OrgID, false, objects)
}

// restoreBatch does one batch of a restore: of its reset, then one chunk
// of saved rows, then the stock its orders hold on others' balances.
func (r *jobRun) restoreBatch(ctx context.Context, tx *Tx, p *jobProgress) (bool, error) {
	budget := r.size
	if p.Phase == "reset" {
		done, err := r.resetBatch(ctx, tx, p, r.row.OrgID, false, &budget)
		if err != nil || !done {
			return false, err
		}
		p.Phase, p.Step, p.Chunk = "write", 0, 0
	}
	// Saved chunks are written until the batch has r.size rows (several
	// chunks per transaction: decisions §60), the reset's keys in the
	// same batch included.
	for p.Phase == "write" && p.Step < len(tenantTables) {
		if budget <= 0 {
			return false, nil
		}
		t := tenantTables[p.Step]
		data, seq, err := savedRows(ctx, tx, p.SnapshotID, t.name, p.Chunk)
		if err != nil {
			return false, fmt.Errorf("restore %s: %w", t.name, err)
		}
		if data == nil {
			p.Step, p.Chunk = p.Step+1, 0
			continue
		}
		stamp, err := r.stampOf(ctx, tx)
		if err != nil {
			return false, err
		}
		written, skipped, err := writeTable(ctx, tx, t, data, stamp)
		if err != nil {
			return false, fmt.Errorf("restore %s: %w", t.name, err)
		}
		p.Tables = addDone(p.Tables, t.name, written)
		if skipped > 0 {
			if p.Skipped == nil {
				p.Skipped = map[string]int64{}
			}
			p.Skipped[t.name] += skipped
		}
		p.Chunk = seq + 1
		budget -= len(data.Rows)
	}
	if p.Phase == "write" {
		p.Phase = "finish"
	}
	stamp, err := r.stampOf(ctx, tx)
	if err != nil {
		return false, err
	}
	return true, retakeHeldStock(ctx, tx, r.row.OrgID, stamp)
}

// savedRows reads the first chunk at or after seq of the snapshot's table
// (nil when there is none): a chunk of snapshot_chunks, or the whole table
// of a snapshot taken before chunks (seq 0 of snapshot_tables.data).
func savedRows(ctx context.Context, tx *Tx, snapshotID int64, table string, seq int) (*tableData, int, error) {
	if seq == 0 {
		var raw string
		err := tx.QueryRow(ctx, `SELECT data FROM snapshot_tables WHERE snapshot_id = ? AND table_name = ?`, snapshotID, table).Scan(&raw)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return nil, 0, err
		}
		if raw != "" {
			data, err := decodeTable(raw)
			return data, 1 << 30, err
		}
	}
	var raw string
	var at int
	err := tx.QueryRow(ctx, `SELECT seq, data FROM snapshot_chunks WHERE snapshot_id = ? AND table_name = ? AND seq >= ? ORDER BY seq LIMIT 1`, snapshotID, table, seq).Scan(&at, &raw)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	data, err := decodeTable(raw)
	return data, at, err
}

// restoreResult is a finished restore's answer: the tables it saved rows
// of, with the rows written back.
func (r *jobRun) restoreResult(ctx context.Context, tx *Tx, p *jobProgress) (*parcelgate.RestoreResult, error) {
	stamp, err := r.stampOf(ctx, tx)
	if err != nil {
		return nil, err
	}
	res := &parcelgate.RestoreResult{Environment: parcelgate.Environment(r.row.Env), BusinessID: r.row.BusinessID, Snapshot: r.row.Snapshot,
		Restored: map[string]int64{}, Skipped: p.Skipped, Stamp: stamp, ElapsedMs: float64(time.Since(fromMicros(r.row.CreatedAt)).Microseconds()) / 1000}
	for _, t := range p.Tables {
		if t.Total != nil && *t.Total > 0 {
			res.Restored[t.Name] = t.Done
		}
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
			// Numbers come as json.Number, text as string: read as such
			// (fmt.Sprint of each was a sixth of a restore's decoding).
			text, ok := v.(string)
			if num, isNum := v.(json.Number); isNum {
				text, ok = string(num), true
			}
			if !ok {
				text = fmt.Sprint(v)
			}
			switch data.Kinds[i] {
			case "int":
				n, err := strconv.ParseInt(text, 10, 64)
				if err != nil {
					return nil, fmt.Errorf("column %s: %w", data.Columns[i], err)
				}
				row[i] = n
			case "float":
				f, err := strconv.ParseFloat(text, 64)
				if err != nil {
					return nil, fmt.Errorf("column %s: %w", data.Columns[i], err)
				}
				row[i] = f
			case "bytes":
				b, err := base64.StdEncoding.DecodeString(text)
				if err != nil {
					return nil, fmt.Errorf("column %s: %w", data.Columns[i], err)
				}
				row[i] = b
			default:
				row[i] = text
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
	if colIndex(data.Columns, "ready_at") >= 0 {
		// Restored orders and supplier shipments wait from their saved
		// times: some may be due at once.
		tx.wakesEngines()
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
// restore gave it back (resetStep). The organization's own balances
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
	rows, err := s.db.query(ctx, `SELECT `+orgColumnsOf("o")+` FROM snapshots s JOIN organizations o ON o.id = s.org_id WHERE s.name = ? AND s.ready = 1 AND `+scope.sql()+` ORDER BY o.environment, o.business_id`,
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

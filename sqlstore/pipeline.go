package sqlstore

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/parcelgate/parcelgate/sqlstore/internal/fastpath"
)

// step is one statement of a pipeline: its text ('?' placeholders) and
// arguments, and for a statement that returns rows, scan, called with each
// row's Scan.
type step struct {
	q    string
	args []any
	scan func(scan func(dest ...any) error) error
	want int64 // rows the statement must write, for its caller to check
}

// pipeline runs steps in order, in tx, and returns how many rows each
// wrote (or read) (decisions §27). On PostgreSQL they go to the server
// together and are answered together, one round trip for all of them (a
// pgx batch, inside tx's transaction); on SQLite, whose statements cost no
// round trip, one after another. Either way each statement sees what the
// ones before it wrote, a failed one fails the pipeline (tx must then be
// rolled back: on PostgreSQL the statements after it have not run), and
// the SQL is the same on both engines. fastpath.Pipeline reads the
// answers; this sends them.
func (tx *Tx) pipeline(ctx context.Context, steps ...step) ([]int64, error) {
	scan := func(i int) fastpath.ScanFunc { return steps[i].scan }
	if tx.d.name != "postgres" {
		return fastpath.Pipeline(len(steps), func(i int) (fastpath.Result, error) {
			s := steps[i]
			if s.scan == nil {
				res, err := tx.Exec(ctx, s.q, s.args...)
				if err != nil {
					return nil, err
				}
				n, err := res.RowsAffected()
				if err != nil {
					return nil, err
				}
				return wrote(n), nil
			}
			rows, err := tx.Query(ctx, s.q, s.args...)
			if err != nil {
				return nil, err
			}
			return &sqlRows{rows: rows}, nil
		}, scan)
	}
	var n []int64
	err := tx.conn.Raw(func(dc any) error {
		c, ok := dc.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("pipeline: driver connection %T", dc)
		}
		b := &pgx.Batch{}
		for _, s := range steps {
			b.Queue(tx.d.rebind(s.q), s.args...)
		}
		br := c.Conn().SendBatch(ctx, b)
		var err error
		n, err = fastpath.Pipeline(len(steps), func(int) (fastpath.Result, error) {
			rows, err := br.Query()
			if err != nil {
				return nil, err
			}
			return pgRows{rows}, nil
		}, scan)
		if err != nil {
			br.Close()
			return err
		}
		return br.Close()
	})
	if err != nil {
		return nil, err
	}
	return n, nil
}

// wrote is the answer of a statement that returns no rows and wrote n.
type wrote int64

func (wrote) Next() bool        { return false }
func (wrote) Scan(...any) error { return sql.ErrNoRows }
func (wrote) Err() error        { return nil }
func (wrote) Close()            {}
func (w wrote) Affected() int64 { return int64(w) }

// sqlRows is a statement's rows through database/sql; it read as many as
// it handed over.
type sqlRows struct {
	rows *sql.Rows
	n    int64
}

func (r *sqlRows) Next() bool {
	if r.rows.Next() {
		r.n++
		return true
	}
	return false
}
func (r *sqlRows) Scan(dest ...any) error { return r.rows.Scan(dest...) }
func (r *sqlRows) Err() error             { return r.rows.Err() }
func (r *sqlRows) Close()                 { r.rows.Close() }
func (r *sqlRows) Affected() int64        { return r.n }

// pgRows is a statement's answer in a pgx batch.
type pgRows struct{ pgx.Rows }

func (r pgRows) Affected() int64 { return r.CommandTag().RowsAffected() }

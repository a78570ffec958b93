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
func pipeline(ctx context.Context, tx *Tx, steps ...step) ([]int64, error) {
	scan := func(i int) fastpath.ScanFunc { return steps[i].scan }
	if tx.d.name != "postgres" {
		var a sqlAnswer
		return fastpath.Pipeline(len(steps), func(i int) (fastpath.Result, error) {
			s := steps[i]
			a = sqlAnswer{}
			if s.scan == nil {
				res, err := tx.Exec(ctx, s.q, s.args...)
				if err != nil {
					return nil, err
				}
				a.n, err = res.RowsAffected()
				return &a, err
			}
			var err error
			a.rows, err = tx.Query(ctx, s.q, s.args...)
			return &a, err
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
		var a pgAnswer
		var err error
		n, err = fastpath.Pipeline(len(steps), func(int) (fastpath.Result, error) {
			var err error
			a.Rows, err = br.Query()
			return &a, err
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

// sqlAnswer is the answer of the statement a pipeline ran last through
// database/sql: its rows, counted as they are read, or, for a statement
// run by Exec, none and the rows it wrote. One serves a whole pipeline.
type sqlAnswer struct {
	rows *sql.Rows // nil after Exec
	n    int64
}

func (a *sqlAnswer) Next() bool {
	if a.rows == nil || !a.rows.Next() {
		return false
	}
	a.n++
	return true
}
func (a *sqlAnswer) Scan(dest ...any) error { return a.rows.Scan(dest...) }
func (a *sqlAnswer) Affected() int64        { return a.n }
func (a *sqlAnswer) Err() error {
	if a.rows == nil {
		return nil
	}
	return a.rows.Err()
}
func (a *sqlAnswer) Close() {
	if a.rows != nil {
		a.rows.Close()
	}
}

// pgAnswer is the answer of a pipeline's statement in a pgx batch. One
// serves a whole pipeline.
type pgAnswer struct{ pgx.Rows }

func (a *pgAnswer) Affected() int64 { return a.CommandTag().RowsAffected() }

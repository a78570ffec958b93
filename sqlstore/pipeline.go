package sqlstore

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
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
// wrote (or read). On PostgreSQL they go to the server together and are
// answered together, one round trip for all of them (a pgx batch, inside
// tx's transaction); on SQLite, whose statements cost no round trip, one
// after another. Either way each statement sees what the ones before it
// wrote, a failed one fails the pipeline (tx must then be rolled back: on
// PostgreSQL the statements after it have not run), and the SQL is the
// same on both engines.
//
// Every round trip of a write transaction costs the server and the
// database a send, a receive and a wake-up each way; a statement that
// needs nothing from the answer of the one before it need not wait for
// it.
func (tx *Tx) pipeline(ctx context.Context, steps ...step) ([]int64, error) {
	n := make([]int64, len(steps))
	if tx.d.name != "postgres" {
		for i, s := range steps {
			if s.scan == nil {
				res, err := tx.Exec(ctx, s.q, s.args...)
				if err != nil {
					return nil, err
				}
				if n[i], err = res.RowsAffected(); err != nil {
					return nil, err
				}
				continue
			}
			rows, err := tx.Query(ctx, s.q, s.args...)
			if err != nil {
				return nil, err
			}
			for rows.Next() {
				n[i]++
				if err := s.scan(rows.Scan); err != nil {
					rows.Close()
					return nil, err
				}
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return nil, err
			}
		}
		return n, nil
	}
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
		for i, s := range steps {
			rows, err := br.Query()
			if err != nil {
				br.Close()
				return err
			}
			for rows.Next() {
				if s.scan != nil {
					if err := s.scan(rows.Scan); err != nil {
						rows.Close()
						br.Close()
						return err
					}
				}
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				br.Close()
				return err
			}
			n[i] = rows.CommandTag().RowsAffected()
		}
		return br.Close()
	})
	if err != nil {
		return nil, err
	}
	return n, nil
}

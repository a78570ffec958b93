package sqlstore_test

import (
	"context"
	"slices"
	"testing"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/internal/tools/testdb"
)

// A create's writes go in one pipeline (decisions §27): its statements
// must run in order, each seeing what the ones before it wrote (an
// order's rows name it by the service ID its own INSERT wrote), and a
// failed one must fail the whole transaction with the driver's error, so
// that a race on an order's unique key is still known as one and retried.
func TestPipelineRunsInOrderAndFailsWhole(t *testing.T) {
	for _, engine := range testdb.Engines {
		t.Run(engine, func(t *testing.T) {
			db := testdb.Open(t, engine, parcelgate.SystemClock{})
			ctx := context.Background()
			if _, _, _, err := db.PipelineForTest(ctx, `CREATE TABLE pipeline_probe (k INTEGER PRIMARY KEY, v INTEGER NOT NULL)`); err != nil {
				t.Fatal(err)
			}
			n, _, _, err := db.PipelineForTest(ctx,
				`INSERT INTO pipeline_probe (k, v) VALUES (1, 10)`,
				`UPDATE pipeline_probe SET v = v + 1 WHERE k = 1`,
				`INSERT INTO pipeline_probe (k, v) SELECT 2, v FROM pipeline_probe WHERE k = 1`,
				`SELECT v FROM pipeline_probe ORDER BY k`)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(n, []int64{1, 1, 1, 2}) {
				t.Fatalf("rows per statement %v, want [1 1 1 2]", n)
			}
			_, read, _, err := db.PipelineForTest(ctx, `SELECT v FROM pipeline_probe ORDER BY k`)
			if err != nil || !slices.Equal(read, []int64{11, 11}) {
				t.Fatalf("after the pipeline: %v %v, want [11 11] (each statement sees the writes before it)", read, err)
			}
			_, _, unique, err := db.PipelineForTest(ctx,
				`INSERT INTO pipeline_probe (k, v) VALUES (3, 0)`,
				`INSERT INTO pipeline_probe (k, v) VALUES (1, 0)`,
				`INSERT INTO pipeline_probe (k, v) VALUES (4, 0)`)
			if err == nil || !unique {
				t.Fatalf("a duplicate key in a pipeline: %v (unique violation %v), want the unique violation", err, unique)
			}
			_, read, _, err = db.PipelineForTest(ctx, `SELECT k FROM pipeline_probe ORDER BY k`)
			if err != nil || !slices.Equal(read, []int64{1, 2}) {
				t.Fatalf("after the failed pipeline: keys %v %v, want [1 2] (nothing of it kept)", read, err)
			}
		})
	}
}

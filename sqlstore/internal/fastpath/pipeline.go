package fastpath

// Pipelines (decisions §27): the statements of a write transaction that
// need nothing from each other's answers go to the database together and
// are answered together, one round trip for all of them. The store queues
// them with its driver and opens their answers; this file reads the
// answers in order, the same on every engine.

// Result is one statement's answer as the engine hands it over: its rows
// (none for a statement that returns none), then, once closed, how many
// rows it wrote or read.
type Result interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close()
	Affected() int64
}

// ScanFunc reads the rows of a statement: it is called with each row's
// Scan.
type ScanFunc func(scan func(dest ...any) error) error

// Pipeline reads the answers of n statements in the order they were
// queued, and returns how many rows each wrote (or read). open(i) opens
// statement i's answer (on an engine without round trips, it runs the
// statement then); scan(i) reads its rows, nil when the statement's rows
// are not read (they are drained). The first statement that fails, or
// whose rows scan refuses, ends the pipeline with its error as the driver
// gave it (a unique violation, a deadlock), so the callers' retries still
// recognise it; the statements after it are not read (the transaction
// must then be rolled back: the database has not run them).
func Pipeline(n int, open func(i int) (Result, error), scan func(i int) ScanFunc) ([]int64, error) {
	counts := make([]int64, n)
	for i := range n {
		r, err := open(i)
		if err != nil {
			return nil, err
		}
		read := scan(i)
		for r.Next() {
			if read == nil {
				continue
			}
			if err := read(r.Scan); err != nil {
				r.Close()
				return nil, err
			}
		}
		r.Close()
		if err := r.Err(); err != nil {
			return nil, err
		}
		counts[i] = r.Affected()
	}
	return counts, nil
}

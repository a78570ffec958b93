package sqlstore

import (
	"context"
	"time"
)

// The planner's statistics (decisions §55).
//
// SQLite plans without statistics until something runs ANALYZE, and
// parcelgate's databases are made by its migrations, which never did: an
// order's stock step read a big merchant's whole warehouse catalog
// because the planner, guessing, took the catalog index (issue 39). The
// store keeps them as SQLite recommends for long-lived connections: PRAGMA
// optimize=0x10002 once the schema is migrated (every table checked, the
// ones never analyzed or whose size changed much analyzed), PRAGMA
// optimize every optimizeEvery after that and when the store closes. The
// writer's analysis_limit (openSQLite) bounds each ANALYZE to a sample of
// each index, so a first optimize of a database of millions of rows takes
// about a second, not a full scan of it (40 s on a 2 GB database).
//
// The statistics hold no sqlite_stat4 samples (decisions §78): each
// optimize ends by dropping any (dropSamples). The writer's own ANALYZE
// never collects them (SQLite takes no samples under analysis_limit), but a
// full ANALYZE by anyone else does: the generator's, an operator's sqlite3.
// With samples, every statement with a parameter on a sampled column (the
// organization leads almost every index) is marked to be planned for its
// values, and each new bound value makes SQLite prepare it again on its
// next run: 14% of the CPU of the big merchant's cold page by number, and
// a cost of every parameterized read of every tenant. Without them the
// plans of every statement the size routes run are the same, measured on
// the full-size database for the big merchant and the small tenant, the
// stock step's (§55) included; sqlite_stat1 is what fixed those plans.
//
// Every connection plans from the statistics the last optimize left
// (reloadStatistics, decisions §78): SQLite loads them into a connection
// only with its schema, so the reader pool would otherwise keep those of
// its open for as long as the server runs.
//
// PostgreSQL keeps its own statistics by autovacuum, which parcelgate
// assumes is on, as it is by default: see AutovacuumOff.

// optimizeEvery is how often a SQLite store runs PRAGMA optimize; one that
// finds nothing changed much costs a look at each table's size.
const optimizeEvery = time.Hour

// sqliteAnalysisLimit is the rows of each index an ANALYZE of the writer
// samples at most (PRAGMA analysis_limit): SQLite's recommendation for
// optimize on large databases.
const sqliteAnalysisLimit = 400

// optimize runs PRAGMA optimize on a SQLite store's writer, then drops
// any samples; all (on open) checks every table. It does nothing on
// PostgreSQL.
func (db *DB) optimize(ctx context.Context, all bool) error {
	if db.dialect.name != "sqlite" {
		return nil
	}
	q := `PRAGMA optimize`
	if all {
		q = `PRAGMA optimize=0x10002`
	}
	db.statsMu.Lock()
	defer db.statsMu.Unlock()
	if _, err := db.write.ExecContext(ctx, q); err != nil {
		return err
	}
	if err := db.dropSamples(ctx); err != nil {
		return err
	}
	return db.reloadStatistics(ctx)
}

// reloadStatistics makes every connection plan from the statistics the
// writer now holds, when they differ from the ones it last made them load
// (decisions §78). SQLite reads sqlite_stat1 into a connection only with
// its schema, or on an ANALYZE by that connection: the reader pool's
// connections, opened as the server started, would otherwise plan from
// the statistics of that moment for as long as they live, whatever the
// hourly optimize analyzed since (a merchant grown tenfold, planned as it
// was). A schema change is what makes every connection — the pool's, and
// any other process's — read both again before its next statement: a
// table made and dropped in one transaction of the writer, the same
// mechanism as dropSamples' DROP. It runs only when the statistics
// changed (at most once an optimize); each connection's next statement
// then parses the schema again, about a millisecond.
func (db *DB) reloadStatistics(ctx context.Context) error {
	var analyzed bool
	err := db.write.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'sqlite_stat1')`).Scan(&analyzed)
	if err != nil || !analyzed {
		return err // never analyzed: nothing to load
	}
	var stats string
	err = db.write.QueryRowContext(ctx, `SELECT COALESCE((SELECT group_concat(tbl || ' ' || COALESCE(idx, '') || ' ' || stat, char(10)) FROM (SELECT tbl, idx, stat FROM sqlite_stat1 ORDER BY tbl, idx)), '')`).Scan(&stats)
	if err != nil || stats == db.statsLoaded {
		return err
	}
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `CREATE TABLE parcelgate_statistics_reload (x INTEGER)`); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DROP TABLE parcelgate_statistics_reload`); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	db.statsLoaded = stats
	return nil
}

// dropSamples drops sqlite_stat4 when it holds any samples, keeping
// sqlite_stat1 (see above). The table is dropped, not emptied: a DROP
// changes the schema, so every connection — the reader pool's, and any
// other process's — reads its schema and statistics again before its next
// statement, where emptied rows would stay loaded in each connection that
// read them (SQLite reloads statistics only with the schema, or on ANALYZE
// by that same connection). An empty or missing table is left alone: no
// schema change, nothing re-read. The next ANALYZE that finds it missing
// makes it again, empty under analysis_limit.
func (db *DB) dropSamples(ctx context.Context) error {
	var samples bool
	err := db.write.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'sqlite_stat4')`).Scan(&samples)
	if err != nil || !samples {
		return err
	}
	if err := db.write.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM sqlite_stat4)`).Scan(&samples); err != nil || !samples {
		return err
	}
	_, err = db.write.ExecContext(ctx, `DROP TABLE sqlite_stat4`)
	return err
}

// keepStatistics runs optimize once now and then every optimizeEvery until
// the store closes. Migrate starts it, once the schema is complete.
func (db *DB) keepStatistics(ctx context.Context) error {
	if db.dialect.name != "sqlite" {
		return nil
	}
	if err := db.optimize(ctx, true); err != nil {
		return err
	}
	db.optimizeOnce.Do(func() {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		db.stopOptimize = func() { cancel(); <-done }
		go func() {
			defer close(done)
			t := time.NewTicker(optimizeEvery)
			defer t.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-t.C:
					// A failed run leaves the statistics as they were;
					// the next tick tries again.
					db.optimize(ctx, false)
				}
			}
		}()
	})
	return nil
}

// AutovacuumOff reports whether the store is a PostgreSQL whose autovacuum
// is off. parcelgate assumes it on (PostgreSQL's default): the planner's
// statistics after a table grows, and the visibility map its index-only
// scans and counts rely on, come from it. With it off the operator must
// run ANALYZE (and VACUUM) after big loads; serve warns.
func (db *DB) AutovacuumOff(ctx context.Context) bool {
	if db.dialect.name != "postgres" {
		return false
	}
	var on string
	err := db.write.QueryRowContext(ctx, `SELECT current_setting('autovacuum')`).Scan(&on)
	return err == nil && on == "off"
}

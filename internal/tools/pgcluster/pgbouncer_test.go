package pgcluster_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/internal/tools/apitest"
	"github.com/parcelgate/parcelgate/internal/tools/pgcluster"
	"github.com/parcelgate/parcelgate/internal/tools/testdb"
	"github.com/parcelgate/parcelgate/sqlstore"
)

// PgBouncer in transaction pooling mode between the instances
// and PostgreSQL. Several instances migrating at once through it take
// turns (the migration lock is a transaction's, not a session's), and
// then serve writes and reads, many at once, through a pool smaller than
// the clients: with named prepared statements (pgx's default) a statement
// prepared on one server connection would be missing on the next one the
// pooler hands out, so the store runs in pooler mode. The replica is
// reached through the same pooler.
func TestThroughPgBouncerInTransactionMode(t *testing.T) {
	testdb.PostgresSchema(t) // skips, or fails under CI, without PostgreSQL
	bouncer, err := pgcluster.StartPgBouncer(testdb.PostgresDSN())
	if err != nil {
		unavailable(t, "starting PgBouncer", err)
	}
	t.Cleanup(func() { bouncer.Stop() })
	admin, err := sql.Open("pgx", testdb.PostgresDSN())
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	// A database of its own: PgBouncer 1.18 refuses a search_path start-up
	// parameter, so a schema per test cannot be chosen through it.
	name := strings.ToLower("t_" + rand.Text()[:16])
	if _, err := admin.Exec(`CREATE DATABASE ` + name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Exec(`DROP DATABASE ` + name + ` WITH (FORCE)`) })
	direct := strings.Replace(testdb.PostgresDSN(), "/test?", "/"+name+"?", 1)
	if !strings.Contains(direct, "/"+name+"?") {
		t.Skipf("cannot place a database name in %s", testdb.PostgresDSN())
	}
	pooled, err := bouncer.DSN(direct)
	if err != nil {
		t.Fatal(err)
	}
	srv := sharedReplica(t)
	replica, err := srv.DSN(direct)
	if err != nil {
		t.Fatal(err)
	}

	const instances = 3
	dbs := make([]*sqlstore.DB, instances)
	var wg sync.WaitGroup
	errs := make(chan error, instances)
	for i := range instances {
		wg.Go(func() {
			db, err := sqlstore.Open(context.Background(), pooled, new(parcelgate.OffsetClock), sqlstore.Pooler(), sqlstore.MaxConns(8), sqlstore.Replica(replica))
			if err != nil {
				errs <- err
				return
			}
			dbs[i] = db
			errs <- db.Migrate(context.Background())
		})
	}
	wg.Wait()
	close(errs)
	for _, db := range dbs {
		if db != nil {
			t.Cleanup(func() { db.Close() })
		}
	}
	for err := range errs {
		if err != nil {
			t.Fatalf("instances migrating at once through PgBouncer: %v", err)
		}
	}
	check, err := sql.Open("pgx", direct)
	if err != nil {
		t.Fatal(err)
	}
	defer check.Close()
	var applied int
	if err := check.QueryRow(`SELECT COUNT(*) FROM schema_migrations`).Scan(&applied); err != nil {
		t.Fatal(err)
	}
	files, _ := os.ReadDir("../../../sqlstore/migrations")
	if applied != len(files) {
		t.Fatalf("%d migrations recorded, %d embedded", applied, len(files))
	}

	envs := make([]*apitest.Env, instances)
	for i, db := range dbs {
		envs[i] = apitest.NewWithDB(t, db, nil)
	}
	envs[0].Catalog(parcelgate.Production, retailer, "SHOP", parcelgate.CatalogDropship, supplier)
	sup := envs[0].EcomToken(parcelgate.Production, supplier, parcelgate.RoleSupplier)
	ret := envs[0].EcomToken(parcelgate.Production, retailer, parcelgate.RoleRetailer)
	// More clients than the pooler's server connections (default_pool_size
	// 20), each writing and reading its own products through another
	// instance each time.
	deadline := time.Now().Add(time.Minute)
	for w := range 24 {
		wg.Go(func() {
			for n := range 5 {
				id := fmt.Sprintf("P-%02d-%d", w, n)
				r := envs[(w+n)%instances].Do(apitest.Request{Method: "PUT", Path: "/ecommerce/v3/inventory", Bearer: sup, Body: []any{map[string]any{
					"product":  product(id),
					"balances": []any{map[string]any{"retailerId": retailer, "catalogExternalId": "SHOP", "quantity": n}},
				}}})
				if r.Status != 200 {
					t.Errorf("PUT through PgBouncer: %d %s", r.Status, r.Body)
					return
				}
				if r := envs[(w+n+1)%instances].Do(apitest.Request{Method: "GET", Path: "/ecommerce/v3/inventory/" + id, Bearer: sup}); r.Status != 200 {
					t.Errorf("GET through PgBouncer: %d %s", r.Status, r.Body)
					return
				}
				if time.Now().After(deadline) {
					return
				}
			}
		})
	}
	wg.Wait()
	var page struct {
		Page struct {
			TotalElements int64 `json:"totalElements"`
		} `json:"page"`
	}
	// The supplier, who wrote them, reads all of them at once, whichever
	// instance answers; the retailer, who wrote nothing, reads them on the
	// replica once it has replayed them.
	envs[1].Do(apitest.Request{Method: "GET", Path: "/ecommerce/v3/inventory/balances?size=1", Bearer: sup}).Expect(200).JSON(&page)
	if page.Page.TotalElements != 24*5 {
		t.Fatalf("the supplier reads %d balances, want %d", page.Page.TotalElements, 24*5)
	}
	for deadline := time.Now().Add(30 * time.Second); ; {
		envs[2].Do(apitest.Request{Method: "GET", Path: "/ecommerce/v3/catalogs/SHOP/balances?size=1", Bearer: ret}).Expect(200).JSON(&page)
		if page.Page.TotalElements == 24*5 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the retailer's catalog holds %d balances after 30 s, want %d", page.Page.TotalElements, 24*5)
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("%d migrations applied once by %d instances at once; 120 writes and reads through PgBouncer", applied, instances)
}

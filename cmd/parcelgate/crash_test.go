package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/internal/tools/testdb"
	"github.com/parcelgate/parcelgate/sqlstore"
)

// TestMain lets the test binary act as the parcelgate binary, so the crash
// test can kill a real server process, and the README test can run a real
// server and the README's "go run ./cmd/parcelgate" lines without a build
// (PARCELGATE_TEST_CLI: the arguments are the command line, and the exit
// status and output are main's).
func TestMain(m *testing.M) {
	if os.Getenv("PARCELGATE_TEST_CLI") == "1" {
		os.Exit(mainCode(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
	}
	if args := os.Getenv("PARCELGATE_TEST_EXEC"); args != "" {
		if err := run(context.Background(), strings.Split(args, "\x1f"), os.Stdout, os.Stderr); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// decisions §10: every acknowledged write is durable — a server killed with
// SIGKILL while writers are busy loses nothing it answered 2xx for.
func TestKilledServerLosesNothingAcknowledged(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server process")
	}
	for _, engine := range testdb.Engines {
		t.Run(engine, func(t *testing.T) {
			var dsn string
			if engine == "sqlite" {
				dsn = "sqlite:" + filepath.Join(t.TempDir(), "crash.db")
			} else {
				dsn = testdb.PostgresSchema(t)
			}
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), "PARCELGATE_TEST_EXEC="+strings.Join([]string{"serve", "--addr", "127.0.0.1:0", "--db", dsn, "--admin-token", "adm", "--demo"}, "\x1f"))
			stdout, _ := cmd.StdoutPipe()
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			base := ""
			sc := bufio.NewScanner(stdout)
			for sc.Scan() {
				if m := baseURL.FindStringSubmatch(sc.Text()); m != nil {
					base = m[1]
					break
				}
			}
			if base == "" {
				cmd.Wait()
				t.Fatalf("server did not start: %s", stderr.String())
			}
			go func() {
				for sc.Scan() {
				}
			}()

			// Writers create organizations until the kill; every 201 is noted.
			var acked sync.Map
			var n atomic.Int64
			ctx, stop := context.WithCancel(context.Background())
			var wg sync.WaitGroup
			for w := range 4 {
				wg.Go(func() {
					for i := 0; ctx.Err() == nil; i++ {
						bid := fmt.Sprintf("SE%d%06d", w, i)
						body := fmt.Sprintf(`{"businessId":%q,"name":"n"}`, bid)
						req, _ := http.NewRequestWithContext(ctx, "POST", base+"/admin/v1/organizations", strings.NewReader(body))
						req.Header.Set("Authorization", "Bearer adm")
						req.Header.Set("Content-Type", "application/json")
						resp, err := http.DefaultClient.Do(req)
						if err != nil {
							return
						}
						resp.Body.Close()
						if resp.StatusCode == http.StatusCreated {
							acked.Store(bid, true)
							n.Add(1)
						}
					}
				})
			}
			for n.Load() < 40 {
				time.Sleep(5 * time.Millisecond)
			}
			cmd.Process.Signal(syscall.SIGKILL)
			cmd.Wait()
			stop()
			wg.Wait()

			db, err := sqlstore.Open(context.Background(), dsn, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			orgs, err := sqlstore.NewOrganizationService(db).ListOrganizations(context.Background(), parcelgate.EnvironmentOperator(parcelgate.Production), parcelgate.OrganizationQuery{}, parcelgate.PageRequest{})
			if err != nil {
				t.Fatal(err)
			}
			stored := map[string]bool{}
			for _, o := range orgs.Items {
				stored[o.BusinessID] = true
			}
			lost := 0
			acked.Range(func(k, _ any) bool {
				if !stored[k.(string)] {
					lost++
					t.Errorf("organization %s was acknowledged but is gone after the kill", k)
				}
				return true
			})
			t.Logf("%d writes acknowledged before SIGKILL, %d lost", n.Load(), lost)
		})
	}
}

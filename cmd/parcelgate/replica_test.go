package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate/internal/tools/testdb"
)

// --db-replica (repeatable; PARCELGATE_DB_REPLICA, URLs separated
// by spaces), --db-replica-max-lag and --db-pooler. A replica that is not a
// postgres:// URL, replicas of a SQLite database and a lag limit that is
// not positive are refused before anything starts.
func TestReplicaFlags(t *testing.T) {
	const pg = "postgres://app@primary/parcelgate"
	c, err := parseServe("serve", []string{"--db", pg, "--db-replica", "postgres://app@r1/parcelgate", "--db-replica", "postgres://app@r2/parcelgate", "--db-pooler"}, &bytes.Buffer{})
	if err != nil || len(c.dbReplicas) != 2 || !c.dbPooler || c.dbReplicaMaxLag != 5*time.Second {
		t.Fatalf("flags: %+v %v", c, err)
	}
	t.Setenv("PARCELGATE_DB", pg)
	t.Setenv("PARCELGATE_DB_REPLICA", "postgres://app@r1/parcelgate  postgres://app@r2/parcelgate")
	t.Setenv("PARCELGATE_DB_REPLICA_MAX_LAG", "750ms")
	if c, err = parseServe("serve", nil, &bytes.Buffer{}); err != nil || strings.Join(c.dbReplicas, " ") != "postgres://app@r1/parcelgate postgres://app@r2/parcelgate" || c.dbReplicaMaxLag != 750*time.Millisecond {
		t.Fatalf("from the environment: %+v %v", c, err)
	}
	for _, args := range [][]string{
		{"--db-replica", "mysql://r1"},
		{"--db", "sqlite:x.db", "--db-replica", "postgres://app@r1/parcelgate"},
		{"--db-replica-max-lag", "0s"},
		{"--db-replica-max-lag", "-1s"},
	} {
		if _, err := parseServe("serve", args, &bytes.Buffer{}); err == nil {
			t.Errorf("%v accepted", args)
		}
	}
}

// Serve with a replica reports it on /readyz, and stays ready
// when the replica cannot serve: here the "replica" is the primary itself,
// which is not in recovery, so it is never read from.
func TestServeReportsReplicas(t *testing.T) {
	dsn := testdb.PostgresSchema(t)
	base, _, stop := startServe(t, "--demo", "--addr", "127.0.0.1:0", "--db", dsn, "--db-replica", dsn)
	defer stop()
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err := http.Get(base + "/readyz")
		if err != nil {
			t.Fatal(err)
		}
		var body struct {
			Status   string `json:"status"`
			Replicas []struct {
				Name, State string
			} `json:"replicas"`
		}
		json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		if resp.StatusCode == 200 && len(body.Replicas) == 1 && body.Replicas[0].State == "not a replica" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("/readyz: %d %+v", resp.StatusCode, body)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

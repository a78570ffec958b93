package httpapi_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/internal/tools/apitest"
	"github.com/parcelgate/parcelgate/sqlstore"
)

// A batch that runs past its own deadline fails nothing (decisions §62):
// it was rolled back, so it is tried again a quarter of the size, and the
// job finishes. (The environment's reset at full size failed this way: its
// batches, grown to the bound on organizations with nothing to remove, met
// a big one's rows.)
func TestLateBatchIsTriedSmaller(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		// Every batch of more than two keys is late; the first is eight.
		// A target of a nanosecond keeps the batches that succeed at the
		// smallest size, so the hook delays the job once.
		late := sqlstore.JobLimits{BatchRows: 8, MaxBatchRows: 8, BatchTarget: time.Nanosecond, SmallRows: -1, FenceRefresh: 10 * time.Millisecond,
			BatchTimeout: time.Second, LateOver: 2}
		e.DB.SetJobLimits(late)
		a := newMerchant(t, e, parcelgate.Test, tenantA)
		b := newMerchant(t, e, parcelgate.Test, tenantB)
		for _, id := range []string{"A1", "A2", "A3", "A4", "A5"} {
			a.create(a.orderBody(id, 1))
		}
		b.create(b.orderBody("B1", 1))
		r := e.Admin("POST", orgPath(tenantA, "/reset")+"&wait=0s", nil).Expect(http.StatusAccepted)
		if j := awaitJob(t, e, r.Header.Get("Location")); j.State != parcelgate.JobDone || j.Reset == nil || j.Reset.Removed["orders"] != 5 {
			t.Fatalf("reset with a late batch: %+v", j)
		}
		if n := orderCount(a); n != 0 {
			t.Fatalf("%d orders after the reset", n)
		}
		if n := orderCount(b); n != 1 {
			t.Fatalf("the other tenant has %d orders", n)
		}
		// The environment's reset likewise.
		r = e.Admin("POST", "/admin/v1/reset?environment=test&wait=0s", nil).Expect(http.StatusAccepted)
		if j := awaitJob(t, e, r.Header.Get("Location")); j.State != parcelgate.JobDone || j.Organizations == nil || j.Organizations.Done != 2 {
			t.Fatalf("environment reset with a late batch: %+v", j)
		}
		if n := orderCount(b); n != 0 {
			t.Fatalf("%d orders after the environment's reset", n)
		}

		// Late at the smallest size too: the job fails, and its error says
		// why to the operator (an internal one was "Internal error." alone).
		b.create(b.orderBody("B2", 1))
		always := late
		always.BatchRows, always.MaxBatchRows, always.LateOver = 20, 20, 1
		e.DB.SetJobLimits(always)
		r = e.Admin("POST", orgPath(tenantB, "/reset")+"&wait=0s", nil).Expect(http.StatusAccepted)
		if j := awaitJob(t, e, r.Header.Get("Location")); j.State != parcelgate.JobFailed || !strings.HasPrefix(j.Error, "Internal error: ") || !strings.Contains(j.Error, "deadline") {
			t.Fatalf("always late: %+v", j)
		}
		if n := orderCount(b); n != 1 {
			t.Fatalf("%d orders after a reset that did nothing", n)
		}
	})
}

// An environment's reset takes organizations one after another within a
// batch while the batch has room (decisions §62): organizations with a
// few rows each are a batch or two in all, not one per organization and
// table. The result counts every organization's rows.
func TestEnvironmentResetBatchesManyOrganizations(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		e.DB.SetJobLimits(sqlstore.JobLimits{BatchRows: 1000, SmallRows: -1, FenceRefresh: 10 * time.Millisecond})
		a := newMerchant(t, e, parcelgate.Test, tenantA)
		b := newMerchant(t, e, parcelgate.Test, tenantB)
		a.create(a.orderBody("A1", 1))
		a.create(a.orderBody("A2", 1))
		b.create(b.orderBody("B1", 1))
		for _, id := range []string{"1000001-2", "1000002-0", "1000003-9", "1000004-7"} {
			e.Org(parcelgate.Test, id)
		}
		r := e.Admin("POST", "/admin/v1/reset?environment=test&wait=0s", nil).Expect(http.StatusAccepted)
		j := awaitJob(t, e, r.Header.Get("Location"))
		if j.State != parcelgate.JobDone || j.Organizations == nil || j.Organizations.Done != 6 || j.Reset.Removed["orders"] != 3 {
			t.Fatalf("environment reset %+v", j)
		}
		// The fence's batch and one batch of the six organizations.
		if j.Batches > 2 {
			t.Fatalf("%d batches for six small organizations", j.Batches)
		}
		if orderCount(a) != 0 || orderCount(b) != 0 {
			t.Fatalf("orders after the reset: a %d b %d", orderCount(a), orderCount(b))
		}
	})
}

package httpapi_test

import (
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/internal/tools/apitest"
	"github.com/parcelgate/parcelgate/sqlstore"
)

// A reset whose batch fails keeps the batches it did (decisions §60): the
// job is failed, unfenced, and its note names the table and the rows
// done; running the reset again finishes it. A restore that fails midway
// is likewise finished by running it again: the tenant is then exactly as
// the snapshot saved it. Batches start at two keys and grow (the target
// is never missed), so the run covers a batch-size change.
func TestFailedJobIsFinishedByRunningItAgain(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		growing := sqlstore.JobLimits{BatchRows: 2, MaxBatchRows: 8, BatchTarget: time.Hour, SmallRows: -1, FenceRefresh: 10 * time.Millisecond}
		e.DB.SetJobLimits(growing)
		a := newMerchant(t, e, parcelgate.Test, tenantA)
		for i := range 12 {
			a.create(a.orderBody(fmt.Sprintf("A%d", i), 1))
		}
		before := tenantView(t, a)
		e.Admin("POST", orgPath(tenantA, "/snapshots"), map[string]any{"name": "s"}).Expect(http.StatusCreated)

		failing := growing
		// The fence's batch (two keys: the next is four), one batch of
		// four orders, then the failure.
		failing.FailAfter = 2
		e.DB.SetJobLimits(failing)
		r := e.Admin("POST", orgPath(tenantA, "/reset")+"&wait=0s", nil).Expect(http.StatusAccepted)
		j := awaitJob(t, e, r.Header.Get("Location"))
		if j.State != parcelgate.JobFailed || j.Fenced || j.Batches != 2 || !strings.Contains(j.Note, "at table ") || !strings.Contains(j.Note, "Run the reset again") {
			t.Fatalf("failed job %+v", j)
		}
		// Unfenced: the tenant is served again, partly reset.
		if n := orderCount(a); n != 8 {
			t.Fatalf("%d orders after a reset failed midway", n)
		}
		e.DB.SetJobLimits(growing)
		var res parcelgate.ResetResult
		e.Admin("POST", orgPath(tenantA, "/reset"), nil).Expect(http.StatusOK).JSON(&res)
		if n := orderCount(a); n != 0 {
			t.Fatalf("%d orders after the reset run again", n)
		}

		e.DB.SetJobLimits(failing)
		r = e.Admin("POST", orgPath(tenantA, "/snapshots/s/restore")+"&wait=0s", nil).Expect(http.StatusAccepted)
		if j = awaitJob(t, e, r.Header.Get("Location")); j.State != parcelgate.JobFailed || !strings.Contains(j.Note, "Run the restore") {
			t.Fatalf("failed restore %+v", j)
		}
		e.DB.SetJobLimits(growing)
		e.Admin("POST", orgPath(tenantA, "/snapshots/s/restore"), nil).Expect(http.StatusOK)
		if after := tenantView(t, a); !reflect.DeepEqual(after, before) {
			t.Fatalf("restored after a failed restore: differs")
		}
	})
}

// An operator cancels a running reset (decisions §60): DELETE (or POST
// .../cancel) answers the job cancelled; the batches it committed stay
// done, the tenant is unfenced at once; a job that ended is 409; another
// organization's job or another environment's is 404 as a missing one.
func TestCancelJob(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		// Batches of one key that each wait out their target: slow enough
		// to be cancelled midway.
		slow := sqlstore.JobLimits{BatchRows: 1, MaxBatchRows: 1, SmallRows: -1, FenceRefresh: 10 * time.Millisecond, StopAfter: 4}
		e.DB.SetJobLimits(slow)
		a := newMerchant(t, e, parcelgate.Test, tenantA)
		newMerchant(t, e, parcelgate.Test, tenantB)
		for _, id := range []string{"A1", "A2", "A3", "A4", "A5", "A6"} {
			a.create(a.orderBody(id, 1))
		}
		var j parcelgate.Job
		r := e.Admin("POST", orgPath(tenantA, "/reset")+"&wait=0s", nil).Expect(http.StatusAccepted)
		r.JSON(&j)
		// StopAfter holds the job running (its lease kept) after four
		// batches, as an instance that stopped would.
		for range 300 {
			e.Admin("GET", r.Header.Get("Location"), nil).Expect(http.StatusOK).JSON(&j)
			if j.Batches >= 4 {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		a.do("GET", "/ecommerce/v3/orders", nil).Expect(http.StatusServiceUnavailable)
		// Cross-tenant: another organization's, another environment's: 404.
		e.Admin("DELETE", "/admin/v1/jobs/"+j.ID+"?environment=test&businessId="+tenantB, nil).Expect(http.StatusNotFound)
		e.Admin("DELETE", "/admin/v1/jobs/"+j.ID+"?environment=production", nil).Expect(http.StatusNotFound)
		var c parcelgate.Job
		e.Admin("POST", "/admin/v1/jobs/"+j.ID+"/cancel?environment=test&businessId="+tenantA, nil).Expect(http.StatusOK).JSON(&c)
		if c.State != parcelgate.JobCancelled || c.Fenced || c.Batches != j.Batches || !strings.Contains(c.Note, "Cancelled") {
			t.Fatalf("cancelled %+v", c)
		}
		e.Admin("DELETE", "/admin/v1/jobs/"+j.ID+"?environment=test", nil).Expect(http.StatusConflict)
		// Unfenced at once; the batches done stay done: some orders gone.
		if n := orderCount(a); n == 6 {
			t.Fatalf("%d orders after a cancelled reset's batches", n)
		}
		e.DB.SetJobLimits(sqlstore.JobLimits{BatchRows: 2, SmallRows: -1, FenceRefresh: 10 * time.Millisecond})
		e.Admin("POST", orgPath(tenantA, "/reset"), nil).Expect(http.StatusOK)
		if n := orderCount(a); n != 0 {
			t.Fatalf("%d orders after the reset run again", n)
		}
	})
}

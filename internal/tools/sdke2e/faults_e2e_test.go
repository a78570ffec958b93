package sdke2e_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/internal/tools/apitest"
)

// The SDK's retries against injected faults. Two 503s are
// retried through (the SDK retries 429, 502, 503 and 504, as the provider's
// clients retry 502 and 503); a fault that outlasts the attempts surfaces
// as a temporary *Error with its status and Retry-After.
func TestRetryAgainstInjectedFaults(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		ctx := context.Background()
		tn := newTenant(t, e, parcelgate.Test, "1234567-1")
		c := sdk(t, e, parcelgate.Test, tn)
		if _, err := c.InventoryPage(ctx, nil); err != nil {
			t.Fatal(err)
		}
		e.Admin("POST", "/admin/v1/faults", map[string]any{"environment": "test", "route": "/ecommerce/v3/inventory", "status": 503, "count": 2}).Expect(http.StatusCreated)
		if _, err := c.InventoryPage(ctx, nil); err != nil {
			t.Fatalf("two 503s were not retried through: %v", err)
		}
		e.Admin("POST", "/admin/v1/faults", map[string]any{"environment": "test", "route": "/ecommerce/v3/inventory", "status": 429, "retryAfter": 0, "count": 10}).Expect(http.StatusCreated)
		_, err := c.InventoryPage(ctx, nil)
		ce := asError(t, err)
		if ce.StatusCode != http.StatusTooManyRequests || !ce.Temporary() {
			t.Fatalf("after the attempts: %+v", ce)
		}
		var l struct {
			Content []struct{ Remaining, Fired int64 }
		}
		e.Admin("GET", "/admin/v1/faults", nil).Expect(http.StatusOK).JSON(&l)
		if len(l.Content) != 1 || l.Content[0].Fired != 4 {
			t.Fatalf("the SDK made %+v attempts, want its 4", l.Content)
		}
	})
}

package console

import (
	"net/http"

	"github.com/parcelgate/parcelgate"
)

// The request journal in the console: the calls the API answered for the
// tenant the session looks at, newest first, from the same store read as
// GET /admin/v1/requests. An integrator sees their own organization's
// calls (their session's organization and environment); an operator the
// picked tenant's. Bodies are stored redacted, so they are shown as kept.

// requestsPageSize is how many calls one page of the journal lists.
const requestsPageSize = 50

// tailRefresh is how often the page reloads itself in live tail mode.
const tailRefresh = "5"

type requestsData struct {
	Entries []*parcelgate.JournalEntry
	// Older is the cursor of the next page; Paged is set past the first.
	Older string
	Paged bool
	Tail  bool
	Keep  int
}

func (c *Console) requests(w http.ResponseWriter, r *http.Request, s *session) {
	if !c.needTenant(w, r, s) {
		return
	}
	// The journal is read for the session's caller: its own organization
	// in its environment (or the tenant an operator chose).
	pr := parcelgate.PageRequest{Size: requestsPageSize}
	d := &requestsData{Tail: r.URL.Query().Get("tail") == "1", Keep: parcelgate.JournalPerTenant}
	if p := r.URL.Query().Get("page"); p != "" {
		// The journal's cursor (decisions §64): the store refuses one it
		// did not make.
		pr.After, d.Paged = p, true
	}
	page, err := c.journal.Journal(r.Context(), s.caller, parcelgate.JournalQuery{}, pr)
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	d.Entries, d.Older = page.Items, page.Next
	if d.Tail && !d.Paged {
		// A browser reloads a page answered with Refresh: the live tail.
		w.Header().Set("Refresh", tailRefresh)
	}
	c.renderView(w, r, http.StatusOK, "requests", &view{Title: "Requests", Session: s, Nav: "requests", Data: d})
}

// request shows one call with its redacted bodies. A request ID of
// another organization or environment answers like a missing one.
func (c *Console) request(w http.ResponseWriter, r *http.Request, s *session) {
	if !c.needTenant(w, r, s) {
		return
	}
	// The lookup is scoped to the session caller's organization and
	// environment: another tenant's call with the same request ID neither
	// shows nor hides this one (decisions §21).
	es, err := c.journal.JournalEntries(r.Context(), s.caller, parcelgate.JournalQuery{}, r.PathValue("requestId"))
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	e := es[0]
	c.renderView(w, r, http.StatusOK, "request", &view{Title: "Request " + e.RequestID, Session: s, Nav: "requests", Data: e})
}

// httpTag is the tag class of an HTTP status: success, client error or
// server error.
func httpTag(status int) string {
	switch {
	case status >= 500:
		return "tag tag-bad"
	case status >= 400:
		return "tag tag-progress"
	default:
		return "tag tag-done"
	}
}

package parcelgate

import "time"

// JournalEntry is one API call as the request journal keeps it:
// what an integrator's code sent and got, so "it failed" is answered by a
// lookup. Bodies are capped and their secrets redacted before they are
// stored.
type JournalEntry struct {
	ID           int64       `json:"-"`
	RequestID    string      `json:"requestId"`
	Environment  Environment `json:"environment"`
	OrgID        int64       `json:"-"`
	BusinessID   string      `json:"businessId"`
	At           time.Time   `json:"at"`
	Method       string      `json:"method"`
	Path         string      `json:"path"`
	Query        string      `json:"query,omitempty"`
	Route        string      `json:"route"`
	Status       int         `json:"status"`
	LatencyMs    float64     `json:"latencyMs"`
	RequestBody  string      `json:"requestBody,omitempty"`
	ResponseBody string      `json:"responseBody,omitempty"`
	// Truncated is set when a body was longer than the journal keeps.
	Truncated bool `json:"truncated,omitempty"`
}

// JournalQuery filters the journal. Zero fields do not filter. Whose
// entries a read sees is its caller's (JournalService), not the query's.
type JournalQuery struct {
	// BusinessID narrows an operator's read to one organization of the
	// caller's environment; a tenant reads its own entries only, whatever
	// it names here.
	BusinessID string
	Route      string
	// Status is one status (503) or, with StatusClass, a class (5 for 5xx).
	Status      int
	StatusClass bool
	From, To    time.Time
}

// JournalPerTenant is how many calls the journal keeps per organization.
const JournalPerTenant = 1000

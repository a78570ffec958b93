package parcelgate

import (
	"fmt"
	"regexp"
	"time"
)

// The sandbox's reset and snapshots of one organization's data:
// its orders, products, balances, shipments and codes. The organization,
// its credentials and (unless asked) its catalogs stay. An operator acts.

// ResetOptions choose what a reset removes besides the organization's data.
type ResetOptions struct {
	// Catalogs also removes the catalogs the organization owns (as a
	// retailer), with every balance published to them.
	Catalogs bool
}

// ResetResult tells what a reset removed.
type ResetResult struct {
	Environment   Environment `json:"environment"`
	Organizations int         `json:"organizations"`
	// Removed counts the rows removed or retired, by table.
	Removed map[string]int64 `json:"removed"`
	// Stamp is the change stamp of the removals: a poller sees them as
	// changes after its cursor.
	Stamp time.Time `json:"stamp"`
	// ElapsedMs is how long the reset took, in milliseconds.
	ElapsedMs float64 `json:"elapsedMs"`
}

// Add counts n rows of table as removed.
func (r *ResetResult) Add(table string, n int64) {
	if r.Removed == nil {
		r.Removed = map[string]int64{}
	}
	r.Removed[table] += n
}

// Snapshot is a saved copy of one organization's data.
type Snapshot struct {
	Name        string      `json:"name"`
	Environment Environment `json:"environment"`
	BusinessID  string      `json:"businessId"`
	CreatedAt   time.Time   `json:"createdAt"`
	// Objects counts the saved rows of every table.
	Objects int64 `json:"objects"`
	// Tables counts the saved rows by table.
	Tables map[string]int64 `json:"tables"`
}

// RestoreResult tells what a restore wrote.
type RestoreResult struct {
	Environment Environment `json:"environment"`
	BusinessID  string      `json:"businessId"`
	Snapshot    string      `json:"snapshot"`
	// Restored counts the rows written back, by table.
	Restored map[string]int64 `json:"restored"`
	// Skipped counts saved rows not written back: balances of a catalog
	// removed since, codes another organization holds now.
	Skipped map[string]int64 `json:"skipped,omitempty"`
	Stamp   time.Time        `json:"stamp"`
	// ElapsedMs is how long the restore took, in milliseconds.
	ElapsedMs float64 `json:"elapsedMs"`
}

var snapshotName = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

// ValidSnapshotName checks a snapshot's name: 1-64 of A-Z a-z 0-9 . _ -.
func ValidSnapshotName(name string) error {
	if !snapshotName.MatchString(name) {
		return &Error{Code: EINVALID, Message: fmt.Sprintf("Snapshot name %q is not valid.", name),
			Fields: []FieldError{{Field: "name", Message: "must be 1-64 characters of A-Z, a-z, 0-9, '.', '_' and '-'"}}}
	}
	return nil
}

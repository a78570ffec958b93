package sqlstore

import (
	"context"

	"github.com/parcelgate/parcelgate"
)

// InsertProductForTest stores a product of the organization as it is, with
// no check of its ID against the supplier's other products: the state a
// database can be in from before bare product IDs were accepted, when
// {businessId}-{x} and {x} could be created as two products.
func (db *DB) InsertProductForTest(ctx context.Context, env parcelgate.Environment, orgID int64, externalID string) error {
	doc := `{"externalId":"` + externalID + `","descriptions":{"en":{"name":"` + externalID + `"}}}`
	_, err := db.exec(ctx, `INSERT INTO products (environment, supplier_org_id, external_id, ean_code, document, created_at, modified_at, status, deleted_at)
		VALUES (?, ?, ?, '', ?, 1, 1, 'ACTIVE', 0)`, string(env), orgID, externalID, doc)
	return err
}

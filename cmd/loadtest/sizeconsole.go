package main

import (
	"context"
	"database/sql"
	"encoding/base64"
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// consoleEqualRows is the rows of the console products list's equal
// variant: what the small tenant of the generated data shows on its first
// page (it has 5 products), so the big merchant's list is compared with
// the small tenant's for the same rows, not for a full page of 50 against
// 5 (decisions §76).
const consoleEqualRows = 5

// consoleProductsEqual is the path of the console products list showing
// the last consoleEqualRows products of the tenant's scope: the page
// after the product whose id is cursor (decisions §64's encoding: "f." and
// the id in base 36), or the first page when the tenant has no more
// products than that (cursor 0).
func consoleProductsEqual(cursor int64) string {
	if cursor == 0 {
		return "/console/products"
	}
	return "/console/products?page=" + url.QueryEscape(base64.RawURLEncoding.EncodeToString([]byte("f."+strconv.FormatInt(cursor, 36))))
}

// consoleProductsCursor is the id after which the tenant org's console
// product list (its own products and those published to its catalogs,
// newest first by id) has consoleEqualRows products left; 0 when it has no
// more than those.
func consoleProductsCursor(ctx context.Context, raw *sql.DB, org int64) (int64, error) {
	var id int64
	err := raw.QueryRowContext(ctx, fmt.Sprintf(`SELECT id FROM (SELECT id FROM products WHERE supplier_org_id = %d AND environment = 'production'
		UNION SELECT product_id FROM balances WHERE retailer_org_id = %d AND removed_at = 0) s ORDER BY id LIMIT 1 OFFSET %d`, org, org, consoleEqualRows)).Scan(&id)
	if err == sql.ErrNoRows {
		return 0, nil
	}
	return id, err
}

// consoleProductRows counts the products of a console products page (a
// stock cell each).
func consoleProductRows(body []byte) string {
	return fmt.Sprintf("%d rows", strings.Count(string(body), `<td class="stock" data-stock=`))
}

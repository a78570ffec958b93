package sqlstore

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/parcelgate/parcelgate"
)

// The console's product search (decisions §58): the products of the
// caller's scope whose externalId starts with the search, ignoring the
// case of ASCII letters, or whose EAN code is it. A prefix is a range of
// keys: each set of the scope is read from an index on (its owner,
// UPPER(externalId) in byte order, product id) — products_supplier_search
// and balances_retailer_search (migration 0041) — from the first key of
// the prefix (or the cursor) on, at most a page past it, so the search
// reads about its page whatever the tenant holds. The index gives the
// order, so a search's answer is ordered by externalId (then id), not
// newest first. A substring ("contains", as before) has no such index.

// compareSearch orders a search's keys: by the upper-cased externalId
// (pageKey.text), then id.
func compareSearch(a, b pageKey) int {
	return cmp.Or(strings.Compare(a.text, b.text), cmp.Compare(a.id, b.id))
}

// asciiUpper upper-cases ASCII letters only, as SQLite's upper() does
// (PostgreSQL's also upper-cases other letters: a search for a non-ASCII
// letter matches only as the engine spells it).
func asciiUpper(s string) string {
	return strings.Map(func(r rune) rune {
		if 'a' <= r && r <= 'z' {
			return r - 'a' + 'A'
		}
		return r
	}, s)
}

// prefixEnd is the least string above every string that starts with p,
// in byte order (UTF-8 byte order is code point order): p with its last
// code point one up, dropping trailing U+10FFFF; "" when there is none.
func prefixEnd(p string) string {
	for p != "" {
		r, size := utf8.DecodeLastRuneInString(p)
		p = p[:len(p)-size]
		if r == utf8.MaxRune {
			continue
		}
		r++
		if r == 0xD800 { // surrogates are no code points of UTF-8
			r = 0xE000
		}
		return p + string(r)
	}
	return ""
}

// searchQuery pages the products of scope matching term (see
// parcelgate.ProductQuery) by (UPPER(externalId), id), from the cursor
// either way; the caller reads each page's products.
func searchQuery(c *parcelgate.Caller, scope parcelgate.ProductScope, term string) *keysetQuery {
	return &keysetQuery{uncounted: true, both: true, textID: true, defaultSize: 50, maxSize: 500, legacy: legacySearch, badCursor: consoleBadCursor,
		keys: func(ctx context.Context, r reader, cur pageCursor, n int) ([]pageKey, error) {
			return searchedProductKeys(ctx, r, c, scope, term, cur, n)
		}}
}

// searchedProductKeys returns up to n keys of scope's products matching
// term past cur in its direction, closest to the cursor first: up to n of
// each set's prefix range and its EAN matches, merged.
func searchedProductKeys(ctx context.Context, r reader, c *parcelgate.Caller, scope parcelgate.ProductScope, term string, cur pageCursor, n int) ([]pageKey, error) {
	prefix := asciiUpper(term)
	end := prefixEnd(prefix)
	byteOrder := r.db.dialect.byteOrder
	// range adds the prefix's range and the cursor on the key expression
	// u and the id column id to f, and returns the ORDER BY.
	keyRange := func(f *filterSQL, u, id string) string {
		f.add(byteOrder(u)+" >= ?", prefix)
		if end != "" {
			f.add(byteOrder(u)+" < ?", end)
		}
		dir := "ASC"
		if cur.set {
			op := ">"
			if cur.back {
				op, dir = "<", "DESC"
			}
			f.add(byteOrder(u)+" "+op+"= ? AND ("+byteOrder(u)+" "+op+" ? OR "+id+" "+op+" ?)", cur.key.text, cur.key.text, cur.key.id)
		} else if cur.back {
			dir = "DESC"
		}
		return byteOrder(u) + " " + dir + ", " + id + " " + dir
	}
	var all []pageKey
	read := func(stmt string, args []any) error {
		rows, err := r.Query(ctx, stmt, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var k pageKey
			if err := rows.Scan(&k.id, &k.text); err != nil {
				return err
			}
			all = append(all, k)
		}
		return rows.Err()
	}
	ean := isDigits(term)
	if scope.Own {
		var f filterSQL
		f.tenant(c, "", "p.supplier_org_id")
		f.add("p.environment = ?", string(c.Environment))
		order := keyRange(&f, "UPPER(p.external_id)", "p.id")
		if err := read(`SELECT p.id, UPPER(p.external_id) FROM products p WHERE `+f.sql()+` ORDER BY `+order+` LIMIT ?`, append(f.args, n)); err != nil {
			return nil, err
		}
		if ean {
			// An EAN code is a product or a few: read from
			// products_supplier_ean, placed among the prefix's keys.
			own := tenantOf(c, "", "p.supplier_org_id")
			if err := read(`SELECT p.id, UPPER(p.external_id) FROM products p WHERE `+own.sql()+` AND p.ean_code = ? AND p.environment = ?`,
				own.with(term, string(c.Environment))); err != nil {
				return nil, err
			}
		}
	}
	if scope.Published {
		var f filterSQL
		publishedTo(&f, c, scope)
		order := keyRange(&f, "UPPER(b.product_external_id)", "b.product_id")
		// A product in several of the retailer's catalogs is one row:
		// grouped in the index's order, so the group stops at n.
		if err := read(`SELECT b.product_id, `+byteOrder("UPPER(b.product_external_id)")+` FROM balances b WHERE `+f.sql()+
			` GROUP BY `+byteOrder("UPPER(b.product_external_id)")+`, b.product_id ORDER BY `+order+` LIMIT ?`, append(f.args, n)); err != nil {
			return nil, err
		}
		if ean {
			var g filterSQL
			g.add("p.environment = ?", string(c.Environment))
			g.add("p.ean_code = ?", term)
			publishedTo(&g, c, scope)
			if err := read(`SELECT DISTINCT p.id, UPPER(p.external_id) FROM products p JOIN balances b ON b.product_id = p.id WHERE `+g.sql(), g.args); err != nil {
				return nil, err
			}
		}
	}
	// The EAN's matches are read whole: keep those past the cursor.
	if cur.set {
		all = slices.DeleteFunc(all, func(k pageKey) bool {
			d := compareSearch(k, cur.key)
			return (!cur.back && d <= 0) || (cur.back && d >= 0)
		})
	}
	slices.SortFunc(all, compareSearch)
	all = slices.CompactFunc(all, func(a, b pageKey) bool { return a.id == b.id })
	if cur.back {
		slices.Reverse(all)
	}
	return all[:min(len(all), n)], nil
}

// isDigits reports whether s is all ASCII digits (an EAN code's form).
func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

package sqlstore

import (
	"cmp"
	"context"
	"encoding/base64"
	"slices"
	"strconv"
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

// searchKey is a product's place in a search's answer.
type searchKey struct {
	upper string // UPPER(externalId)
	id    int64
}

func (a searchKey) compare(b searchKey) int {
	return cmp.Or(strings.Compare(a.upper, b.upper), cmp.Compare(a.id, b.id))
}

// searchCursor is a parsed page cursor of a search: the key the page
// starts after, and whether it goes back towards the first page.
type searchCursor struct {
	key  searchKey
	back bool
	set  bool
}

func encodeSearchCursor(k searchKey, back bool) string {
	dir := "f"
	if back {
		dir = "b"
	}
	return base64.RawURLEncoding.EncodeToString([]byte("s" + dir + "." + strconv.FormatInt(k.id, 36) + "." + k.upper))
}

func parseSearchCursor(s string) (searchCursor, error) {
	if s == "" {
		return searchCursor{}, nil
	}
	bad := &parcelgate.Error{Code: parcelgate.EINVALID, Message: "The page link is not valid; start from the first page.",
		Fields: []parcelgate.FieldError{{Field: "page", Message: "is not a page of this list"}}}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return searchCursor{}, bad
	}
	parts := strings.SplitN(string(b), ".", 3)
	if len(parts) != 3 || (parts[0] != "sf" && parts[0] != "sb") || !utf8.ValidString(parts[2]) {
		return searchCursor{}, bad
	}
	c := searchCursor{back: parts[0] == "sb", set: true, key: searchKey{upper: parts[2]}}
	if c.key.id, err = strconv.ParseInt(parts[1], 36, 64); err != nil {
		return searchCursor{}, bad
	}
	return c, nil
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

// searchProducts pages the products of scope matching term (see
// parcelgate.ProductQuery) by (UPPER(externalId), id), from the cursor
// after either way, limit at a time, each with its stock total.
func (s *InventoryService) searchProducts(ctx context.Context, c *parcelgate.Caller, scope parcelgate.ProductScope, term, after string, limit int) (parcelgate.Page[*parcelgate.ScopedProduct], error) {
	cur, err := parseSearchCursor(after)
	if err != nil {
		return parcelgate.Page[*parcelgate.ScopedProduct]{}, err
	}
	return readOnReplica(ctx, s.db, c, func(r reader) (parcelgate.Page[*parcelgate.ScopedProduct], error) {
		var page parcelgate.Page[*parcelgate.ScopedProduct]
		err := r.readTx(ctx, func(r reader) error {
			keys, err := searchedProductKeys(ctx, r, c, scope, term, cur, limit+1)
			if err != nil {
				return err
			}
			more := len(keys) > limit
			if more {
				keys = keys[:limit]
			}
			if cur.back {
				slices.Reverse(keys)
			}
			if len(keys) == 0 {
				return nil
			}
			ids := make([]int64, len(keys))
			for i, k := range keys {
				ids[i] = k.id
			}
			if page.Items, err = scopedProducts(ctx, r, c, scope, ids); err != nil {
				return err
			}
			if (cur.back && more) || (cur.set && !cur.back) {
				page.Prev = encodeSearchCursor(keys[0], true)
			}
			if more || cur.back {
				page.Next = encodeSearchCursor(keys[len(keys)-1], false)
			}
			return nil
		})
		return page, err
	})
}

// searchedProductKeys returns up to n keys of scope's products matching
// term past cur in its direction, closest to the cursor first: up to n of
// each set's prefix range and its EAN matches, merged.
func searchedProductKeys(ctx context.Context, r reader, c *parcelgate.Caller, scope parcelgate.ProductScope, term string, cur searchCursor, n int) ([]searchKey, error) {
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
			f.add(byteOrder(u)+" "+op+"= ? AND ("+byteOrder(u)+" "+op+" ? OR "+id+" "+op+" ?)", cur.key.upper, cur.key.upper, cur.key.id)
		} else if cur.back {
			dir = "DESC"
		}
		return byteOrder(u) + " " + dir + ", " + id + " " + dir
	}
	var all []searchKey
	read := func(stmt string, args []any) error {
		rows, err := r.Query(ctx, stmt, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var k searchKey
			if err := rows.Scan(&k.id, &k.upper); err != nil {
				return err
			}
			all = append(all, k)
		}
		return rows.Err()
	}
	ean := isDigits(term)
	if scope.Own {
		var f filterSQL
		f.add("p.supplier_org_id = ?", c.OrgID)
		f.add("p.environment = ?", string(c.Environment))
		order := keyRange(&f, "UPPER(p.external_id)", "p.id")
		if err := read(`SELECT p.id, UPPER(p.external_id) FROM products p WHERE `+f.sql()+` ORDER BY `+order+` LIMIT ?`, append(f.args, n)); err != nil {
			return nil, err
		}
		if ean {
			// An EAN code is a product or a few: read from
			// products_supplier_ean, placed among the prefix's keys.
			if err := read(`SELECT p.id, UPPER(p.external_id) FROM products p WHERE p.supplier_org_id = ? AND p.ean_code = ? AND p.environment = ?`,
				[]any{c.OrgID, term, string(c.Environment)}); err != nil {
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
		all = slices.DeleteFunc(all, func(k searchKey) bool {
			d := k.compare(cur.key)
			return (!cur.back && d <= 0) || (cur.back && d >= 0)
		})
	}
	slices.SortFunc(all, searchKey.compare)
	all = slices.CompactFunc(all, func(a, b searchKey) bool { return a.id == b.id })
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

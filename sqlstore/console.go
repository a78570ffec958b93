package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/console/view"
)

// ConsoleService keeps the web console's own reads of one tenant's data and
// the operator's overview (console.Reader, console.OperatorReader, in the
// shapes of console/view). Each read acts for a caller and asks
// Caller.May first, with the action of the console's page that shows it
// (decisions §16, §18): the console asks too, before calling, and words
// its own refusal; this is the guarantee for every other caller.
type ConsoleService struct {
	db *DB
	// maxCodes bounds the active codes the overview counts
	// (view.MaxCountedCodes unless WithCodeCountBound).
	maxCodes int64
}

// NewConsoleService returns the ConsoleService over db.
func NewConsoleService(db *DB) *ConsoleService {
	return &ConsoleService{db: db, maxCodes: view.MaxCountedCodes}
}

// WithCodeCountBound returns the service counting active codes up to n
// (at least 1) instead of view.MaxCountedCodes: a test of the bound
// needs n codes, not a thousand.
func (s *ConsoleService) WithCodeCountBound(n int64) *ConsoleService {
	out := *s
	out.maxCodes = max(1, n)
	return &out
}

// The web console's reads. Each is scoped to one organization AND its
// environment (an operator picks the tenant; an integrator has its own), so
// another tenant's object answers exactly like a missing one. The console's
// lists show the newest first and page by key in both directions, so the
// last page of 100,000 orders costs what the first does.

// ConsoleOrderCounts counts the caller's orders by status. Only a caller
// that may ActionReadOrders (interface §5.2).
func (s *ConsoleService) ConsoleOrderCounts(ctx context.Context, c *parcelgate.Caller) (map[parcelgate.OrderStatus]int64, error) {
	if err := c.May(parcelgate.ActionReadOrders); err != nil {
		return nil, err
	}
	return readOnReplica(ctx, s.db, c, func(r reader) (map[parcelgate.OrderStatus]int64, error) {
		// The kept counts (decisions §52), not the orders: a few index
		// entries whatever the tenant holds.
		own := tenantOf(c, "", "org_id")
		rows, err := r.Query(ctx, `SELECT status, SUM(n) FROM kept_counts WHERE kind = ? AND `+own.sql()+` AND environment = ? GROUP BY status HAVING SUM(n) <> 0`,
			append([]any{string(parcelgate.TallyOrders)}, own.with(string(c.Environment))...)...)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		out := map[parcelgate.OrderStatus]int64{}
		for rows.Next() {
			var status string
			var n int64
			if err := rows.Scan(&status, &n); err != nil {
				return nil, err
			}
			out[parcelgate.OrderStatus(status)] = n
		}
		return out, rows.Err()
	})
}

// ConsoleCounts counts the caller's products, active codes and
// shipments: the figures of its overview. Only a caller that may
// ActionViewTenant (any service account, its own organization's;
// decisions §16).
func (s *ConsoleService) ConsoleCounts(ctx context.Context, c *parcelgate.Caller) (view.TenantCounts, error) {
	if err := c.May(parcelgate.ActionViewTenant); err != nil {
		return view.TenantCounts{}, err
	}
	return readOnReplica(ctx, s.db, c, func(r reader) (view.TenantCounts, error) {
		var n view.TenantCounts
		// The kept counts (decisions §52) and the bounded count of codes,
		// in one read transaction: the tiles are of one moment.
		err := r.readTx(ctx, func(r reader) error {
			var err error
			if n.Products, err = keptCount(ctx, r, parcelgate.TallyProducts, c.Environment, c.OrgID, []string{string(parcelgate.ProductActive)}); err != nil {
				return err
			}
			if n.EOSProducts, err = keptCount(ctx, r, parcelgate.TallyProducts, c.Environment, c.OrgID, []string{string(parcelgate.ProductEOS)}); err != nil {
				return err
			}
			if n.Shipments, err = keptCount(ctx, r, parcelgate.TallyShipments, c.Environment, c.OrgID, nil); err != nil {
				return err
			}
			n.ActiveCodes, n.ActiveCodesMore, err = activeCodes(ctx, r, c, s.consoleNow(c.Environment), s.maxCodes)
			return err
		})
		return n, err
	})
}

// activeCodes counts c's codes active at now, up to bound (more reports
// that there are more; view.MaxCountedCodes in service). A code stops being active when it
// expires, a moment no write marks, so no counter can keep the figure:
// the count reads at most the bound's entries of codes_active_org_expiry
// (migration 0040), exact below it, and is as fresh as the page.
func activeCodes(ctx context.Context, r reader, c *parcelgate.Caller, now time.Time, bound int64) (n int64, more bool, err error) {
	own := tenantOf(c, "", "org_id")
	err = r.QueryRow(ctx, `SELECT COUNT(*) FROM (SELECT 1 FROM codes WHERE `+own.sql()+` AND environment = ? AND released_at = 0 AND expires_at > ? LIMIT ?) x`,
		own.with(string(c.Environment), micros(now), bound+1)...).Scan(&n)
	if n > bound {
		return bound, true, err
	}
	return n, false, err
}

// ConsoleOrderAllocations returns the rows of the caller's order id with
// their balances, and whether the order holds its stock now. Only a
// caller that may ActionReadOrders (interface §5.2).
func (s *ConsoleService) ConsoleOrderAllocations(ctx context.Context, c *parcelgate.Caller, id string) ([]view.Allocation, bool, error) {
	if err := c.May(parcelgate.ActionReadOrders); err != nil {
		return nil, false, err
	}
	id = strings.TrimSpace(id)
	// On the caller's replica, as FindOrder reads the order the page
	// shows: the order and its rows' balances in one read transaction,
	// so the page's figures are of one moment.
	type allocations struct {
		rows []view.Allocation
		held bool
	}
	a, err := readOnReplica(ctx, s.db, c, func(r reader) (allocations, error) {
		var a allocations
		err := r.readTx(ctx, func(r reader) error {
			a = allocations{}
			var pk int64
			var held int
			own := tenantOf(c, "", "org_id")
			err := r.QueryRow(ctx, `SELECT id, allocated FROM orders WHERE (`+own.sql()+` AND environment = ? AND order_id = ?) OR (`+own.sql()+` AND environment = ? AND external_id = ?)`,
				append(own.with(string(c.Environment), id), own.with(string(c.Environment), id)...)...).Scan(&pk, &held)
			if errors.Is(err, sql.ErrNoRows) {
				return parcelgate.Errorf(parcelgate.ENOTFOUND, "Order %s not found.", id)
			}
			if err != nil {
				return err
			}
			a.held = held == 1
			// A retailer's dropshipping rows hold its suppliers' balances
			// in its own catalogs (decisions §34), which it reads as their
			// retailer.
			asSupplier, asRetailer := tenantOf(c, "", "b.supplier_org_id"), tenantOf(c, "", "b.retailer_org_id")
			rows, err := r.Query(ctx, `SELECT r.line, r.product_external_id, r.warehouse_external_id, r.quantity, r.balance_id,
				COALESCE(b.product_id, 0), COALESCE(k.external_id, ''), COALESCE(b.quantity, 0), COALESCE(b.allocated, 0)
				FROM order_rows r
				LEFT JOIN balances b ON b.id = r.balance_id AND (`+asSupplier.sql()+` OR `+asRetailer.sql()+`)
				LEFT JOIN catalogs k ON k.id = b.catalog_id
				WHERE r.order_pk = ? ORDER BY r.line`, append(asSupplier.with(), asRetailer.with(pk)...)...)
			if err != nil {
				return err
			}
			defer rows.Close()
			for rows.Next() {
				var al view.Allocation
				if err := rows.Scan(&al.Line, &al.Product, &al.Warehouse, &al.Quantity, &al.BalanceID, &al.ProductID, &al.Catalog, &al.BalanceQuantity, &al.BalanceAllocated); err != nil {
					return err
				}
				a.rows = append(a.rows, al)
			}
			return rows.Err()
		})
		return a, err
	})
	return a.rows, a.held, err
}

// ConsoleCatalogChoices lists the catalogs of the caller's environment its
// organization supplies, by retailer and external ID. Only a caller that
// may ActionListOwnCatalogs (every role: the catalogs it takes part in,
// interface §5.2).
func (s *ConsoleService) ConsoleCatalogChoices(ctx context.Context, c *parcelgate.Caller) ([]view.Catalog, error) {
	if err := c.May(parcelgate.ActionListOwnCatalogs); err != nil {
		return nil, err
	}
	own := tenantOf(c, "", "cs.supplier_org_id")
	rows, err := s.db.query(ctx, `SELECT ro.business_id, k.external_id, k.name, k.catalog_type, k.retailer_org_id
		FROM catalog_suppliers cs JOIN catalogs k ON k.id = cs.catalog_id JOIN organizations ro ON ro.id = k.retailer_org_id
		WHERE `+own.sql()+` AND k.environment = ? ORDER BY ro.business_id, k.external_id LIMIT 500`, own.with(string(c.Environment))...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []view.Catalog
	for rows.Next() {
		var k view.Catalog
		var retailer int64
		if err := rows.Scan(&k.RetailerID, &k.ExternalID, &k.Name, &k.Type, &retailer); err != nil {
			return nil, err
		}
		k.Own = retailer == c.OrgID
		out = append(out, k)
	}
	return out, rows.Err()
}

// ConsoleChangeStamp is the newest modification stamp of the caller's
// data, which its live pages poll. Only a caller
// that may ActionViewTenant (decisions §16).
func (s *ConsoleService) ConsoleChangeStamp(ctx context.Context, c *parcelgate.Caller) (int64, error) {
	if err := c.May(parcelgate.ActionViewTenant); err != nil {
		return 0, err
	}
	return readOnReplica(ctx, s.db, c, func(r reader) (int64, error) {
		var stamp int64
		orders, asRetailer, asSupplier := tenantOf(c, "", "org_id"), tenantOf(c, "", "retailer_org_id"), tenantOf(c, "", "supplier_org_id")
		err := r.QueryRow(ctx, `SELECT MAX(m) FROM (
			SELECT COALESCE(MAX(updated_at), 0) AS m FROM orders WHERE `+orders.sql()+`
			UNION ALL SELECT COALESCE(MAX(modified_at), 0) FROM balances WHERE `+asRetailer.sql()+`
			UNION ALL SELECT COALESCE(MAX(modified_at), 0) FROM balances WHERE `+asSupplier.sql()+` AND eos_at = 0) x`, slices.Concat(orders.with(), asRetailer.with(), asSupplier.with())...).Scan(&stamp)
		return stamp, err
	})
}

// The operator's reads act for an operator caller (ActionOperate,
// decisions §9, §16): EnvironmentOperator(env) for an environment's
// figures (AllOperator(): every environment's), the operator on
// one organization (OperatorCaller, or a console operator session that
// chose the tenant) for that organization's credentials and catalogs.

// ConsoleEnvironmentStamp is the last modification stamp handed out in
// c's environment (every environment's newest for AllOperator()):
// it moves with every change of an order or balance there. The operator's
// overview polls it. Only the operator (ActionOperate).
func (s *ConsoleService) ConsoleEnvironmentStamp(ctx context.Context, c *parcelgate.Caller) (int64, error) {
	if err := c.May(parcelgate.ActionOperate); err != nil {
		return 0, err
	}
	var stamp int64
	if c.Scope == parcelgate.ScopeAll {
		err := s.db.queryRow(ctx, `SELECT COALESCE(MAX(last_us), 0) FROM change_clock`).Scan(&stamp)
		return stamp, err
	}
	err := s.db.queryRow(ctx, `SELECT last_us FROM change_clock WHERE environment = ?`, string(c.Environment)).Scan(&stamp)
	return stamp, err
}

// ConsoleOrganizationFigures returns orgs (a page of ListOrganizations)
// with the figures the operator's overview shows of each: its orders and
// its ACTIVE products. An organization outside c's scope is left out.
// Only the operator (ActionOperate).
func (s *ConsoleService) ConsoleOrganizationFigures(ctx context.Context, c *parcelgate.Caller, orgs []*parcelgate.Organization) ([]*view.Organization, error) {
	if err := c.May(parcelgate.ActionOperate); err != nil {
		return nil, err
	}
	out := make([]*view.Organization, 0, len(orgs))
	if len(orgs) == 0 {
		return out, nil
	}
	ids := make([]any, len(orgs))
	for i, o := range orgs {
		ids[i] = o.ID
	}
	var f, g filterSQL
	f.tenant(c, "environment", "org_id")
	f.in("org_id", ids)
	g.tenant(c, "environment", "id")
	g.in("id", ids)
	type figures struct{ orders, products int64 }
	// On a replica where one is usable: figures of an overview, which may
	// trail the tenants' own writes by the replica's delay (an operator
	// reads no write of its own in them).
	byID, err := readOnReplica(ctx, s.db, c, func(r reader) (map[int64]figures, error) {
		// The kept counts (decisions §52) of the page's organizations:
		// every order, ACTIVE products.
		rows, err := r.Query(ctx, `SELECT org_id, kind, SUM(n) FROM kept_counts WHERE `+f.sql()+` AND (kind = ? OR (kind = ? AND status = ?)) GROUP BY org_id, kind`,
			append(f.args, string(parcelgate.TallyOrders), string(parcelgate.TallyProducts), string(parcelgate.ProductActive))...)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		byID := map[int64]figures{}
		for rows.Next() {
			var id, n int64
			var kind string
			if err := rows.Scan(&id, &kind, &n); err != nil {
				return nil, err
			}
			fig := byID[id]
			if kind == string(parcelgate.TallyOrders) {
				fig.orders = n
			} else {
				fig.products = n
			}
			byID[id] = fig
		}
		if err := rows.Err(); err != nil {
			return nil, err
		}
		// Every organization in scope is listed, with or without rows.
		rows, err = r.Query(ctx, `SELECT id FROM organizations WHERE `+g.sql(), g.args...)
		ids, err := scanColumn[int64](rows, err)
		for _, id := range ids {
			byID[id] = byID[id]
		}
		return byID, err
	})
	if err != nil {
		return nil, err
	}
	for _, o := range orgs {
		if n, ok := byID[o.ID]; ok {
			out = append(out, &view.Organization{Organization: o, Orders: n.orders, Products: n.products})
		}
	}
	return out, nil
}

// ConsoleEnvironmentCounts counts the organizations and orders of c's
// environment (of every environment for AllOperator()). Only
// the operator (ActionOperate).
func (s *ConsoleService) ConsoleEnvironmentCounts(ctx context.Context, c *parcelgate.Caller) (orgs, orders int64, err error) {
	if err := c.May(parcelgate.ActionOperate); err != nil {
		return 0, 0, err
	}
	envs := []parcelgate.Environment{c.Environment}
	if c.Scope == parcelgate.ScopeAll {
		envs = parcelgate.Environments
	}
	// The kept counts of each environment (decisions §52).
	type counts struct{ orgs, orders int64 }
	n, err := readOnReplica(ctx, s.db, c, func(r reader) (counts, error) {
		var n counts
		for _, env := range envs {
			o, err := keptCount(ctx, r, parcelgate.TallyOrganizations, env, 0, nil)
			if err != nil {
				return n, err
			}
			k, err := keptCount(ctx, r, parcelgate.TallyOrders, env, 0, nil)
			if err != nil {
				return n, err
			}
			n.orgs, n.orders = n.orgs+o, n.orders+k
		}
		return n, nil
	})
	return n.orgs, n.orders, err
}

// ConsoleCredentialOrg returns the organization of a live gateway client
// (kind view.CredentialGatewayClient, by client ID) or service account
// (view.CredentialServiceAccount, by username) in c's scope (of c's
// environment, any environment for AllOperator(); c's
// organization's only when c names one), or ENOTFOUND. Only the operator
// (ActionOperate).
func (s *ConsoleService) ConsoleCredentialOrg(ctx context.Context, c *parcelgate.Caller, kind, id string) (int64, error) {
	if err := c.May(parcelgate.ActionOperate); err != nil {
		return 0, err
	}
	var scope filterSQL
	scope.tenant(c, "o.environment", "x.org_id")
	q := `SELECT x.org_id FROM gateway_clients x JOIN organizations o ON o.id = x.org_id WHERE x.client_id = ? AND x.revoked_at = 0 AND ` + scope.sql()
	if kind == view.CredentialServiceAccount {
		q = `SELECT x.org_id FROM service_accounts x JOIN organizations o ON o.id = x.org_id WHERE x.username = ? AND x.revoked_at = 0 AND ` + scope.sql()
	}
	var org int64
	err := s.db.queryRow(ctx, q, append([]any{id}, scope.args...)...).Scan(&org)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, parcelgate.Errorf(parcelgate.ENOTFOUND, "no such credential")
	}
	return org, err
}

// consoleNow is the store's time in env, the one time the console's reads
// compare with (code expiry, lockouts).
func (s *ConsoleService) consoleNow(env parcelgate.Environment) time.Time { return s.db.clock.Now(env) }

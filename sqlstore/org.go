package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"

	"github.com/parcelgate/parcelgate"
)

// OrganizationService keeps the organizations (tenants) of each environment.
type OrganizationService struct{ db *DB }

// NewOrganizationService returns the OrganizationService over db.
func NewOrganizationService(db *DB) *OrganizationService { return &OrganizationService{db: db} }

var _ parcelgate.OrganizationService = (*OrganizationService)(nil)

// CreateOrganization stores o (see parcelgate.OrganizationService). Only a
// caller that may ActionOperate, in o's environment: an operator of the
// other environment is refused, as it does not see that environment's
// organizations (decisions §3).
func (s *OrganizationService) CreateOrganization(ctx context.Context, c *parcelgate.Caller, o *parcelgate.Organization) error {
	if err := c.May(parcelgate.ActionOperate); err != nil {
		return err
	}
	if err := o.Validate(); err != nil {
		return err
	}
	if !c.Reaches(o.Environment) {
		return parcelgate.Errorf(parcelgate.EFORBIDDEN, "The operator of %s cannot create an organization in %s.", c.Environment, o.Environment)
	}
	o.CreatedAt = s.db.clock.Now(o.Environment).UTC().Truncate(1000)
	addr := ""
	if o.Address != nil {
		b, _ := json.Marshal(o.Address)
		addr = string(b)
	}
	return s.db.inTx(ctx, func(tx *Tx) error {
		err := tx.QueryRow(ctx, `INSERT INTO organizations (environment, business_id, name, contract_number, address, created_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING id`,
			string(o.Environment), o.BusinessID, o.Name, o.ContractNumber, addr, micros(o.CreatedAt)).Scan(&o.ID)
		if isUniqueViolation(err) {
			return parcelgate.Errorf(parcelgate.ECONFLICT, "organization %s already exists in %s", o.BusinessID, o.Environment)
		}
		return err
	})
}

// tenant adds to f the tenant condition of caller c (tenantOf), on the
// rows whose environment and organization are the columns envCol and
// orgCol. It is the one way a statement built on a filterSQL is kept to a
// caller, tenant or operator alike; the tenancy scan counts it as naming
// the tenant key of a statement built from f in the same function.
func (f *filterSQL) tenant(c *parcelgate.Caller, envCol, orgCol string) {
	t := tenantOf(c, envCol, orgCol)
	for i, cond := range t.conds {
		f.add(cond, t.args[i]...)
	}
}

// A tenantCond is the tenant condition of one statement, as tenantOf
// decides it: its conditions, each with its arguments.
type tenantCond struct {
	conds []string
	args  [][]any
}

// tenantOf is the tenant condition of caller c (decisions §3, §50, §71)
// on the rows whose environment and organization are the columns envCol
// and orgCol. It is the one rule every tenant-facing statement is kept to
// its caller by, through filterSQL.tenant or, for a statement not built
// on a filterSQL, sql and with:
//
//   - c's Scope is an organization (OrgID in Environment: every tenant,
//     and the operator on one organization): orgCol = its id, and envCol
//     = its environment when the statement names an environment column.
//     An organization's id is of exactly one environment (organizations.id
//     is the primary key), so the organization alone is exact; a
//     statement whose index leads with the organization and carries no
//     environment (a tenant's orders by date, its balances) names no
//     environment column, and reads that index only, as it always did.
//   - every organization of c's environment: envCol = that environment;
//   - every environment: no condition.
//
// A statement that names no environment column (envCol "") is one
// organization's by design: a tenant's own shipment, code, order or
// product, which an operator reaches as that organization
// (OperatorCaller). A scope wider than one organization reaches nothing
// through it, as does an organization's scope that names none (a caller
// not yet of a tenant) or a scope this build does not know. Outside the
// scope an object answers as a missing one. Each condition is a plain
// equality the planner can use an index for. An object already read,
// before a statement could ask, is checked by Caller.Covers, the same
// rule.
func tenantOf(c *parcelgate.Caller, envCol, orgCol string) tenantCond {
	var t tenantCond
	add := func(cond string, args ...any) {
		t.conds = append(t.conds, cond)
		t.args = append(t.args, args)
	}
	switch {
	case c.Scope == parcelgate.ScopeOrganization:
		orgID, ok := c.Organization()
		if !ok {
			add("1 = 0")
			break
		}
		if envCol != "" {
			add(envCol+" = ?", string(c.Environment))
		}
		add(orgCol+" = ?", orgID)
	case envCol == "":
		add("1 = 0")
	case c.Scope == parcelgate.ScopeEnvironment:
		add(envCol+" = ?", string(c.Environment))
	case c.Scope == parcelgate.ScopeAll:
	default:
		add("1 = 0")
	}
	return t
}

// sql is t's conditions joined by AND, for a statement's WHERE or ON
// ("1=1" when the scope is every environment's, as filterSQL.sql).
func (t tenantCond) sql() string {
	if len(t.conds) == 0 {
		return "1=1"
	}
	return strings.Join(t.conds, " AND ")
}

// with is t's arguments followed by args: the arguments of a statement
// whose tenant condition (t.sql) comes before the placeholders of args.
func (t tenantCond) with(args ...any) []any {
	var out []any
	for _, a := range t.args {
		out = append(out, a...)
	}
	return append(out, args...)
}

const orgColumns = `id, environment, business_id, name, contract_number, address, created_at`

// orgColumnsOf is orgColumns qualified with a query's alias for
// organizations, for joins.
func orgColumnsOf(alias string) string {
	return alias + "." + strings.ReplaceAll(orgColumns, ", ", ", "+alias+".")
}

func scanOrganization(s rowScanner) (*parcelgate.Organization, error) {
	var o parcelgate.Organization
	var env, addr string
	var created int64
	if err := s.Scan(&o.ID, &env, &o.BusinessID, &o.Name, &o.ContractNumber, &addr, &created); err != nil {
		return nil, err
	}
	o.Environment = parcelgate.Environment(env)
	o.CreatedAt = fromMicros(created)
	if addr != "" {
		o.Address = new(parcelgate.Address)
		if err := json.Unmarshal([]byte(addr), o.Address); err != nil {
			return nil, err
		}
	}
	return &o, nil
}

// FindOrganization returns the organization of c's environment with
// businessID (see parcelgate.OrganizationService). Only a caller that may
// ActionOperate; an organization outside c's scope is ENOTFOUND.
func (s *OrganizationService) FindOrganization(ctx context.Context, c *parcelgate.Caller, businessID string) (*parcelgate.Organization, error) {
	if err := c.May(parcelgate.ActionOperate); err != nil {
		return nil, err
	}
	o, err := s.findOrganization(ctx, c.Environment, businessID)
	if err == nil && !c.Covers(o.Environment, o.ID) {
		return nil, parcelgate.Errorf(parcelgate.ENOTFOUND, "organization %s not found in %s", o.BusinessID, c.Environment)
	}
	return o, err
}

// findOrganization returns the organization of env with businessID, or
// ENOTFOUND. It asks no caller: the services call it for the organization
// a request names once they have checked their own caller (a fault's
// organization, a catalog's retailer and suppliers, a console session's
// tenant).
func (s *OrganizationService) findOrganization(ctx context.Context, env parcelgate.Environment, businessID string) (*parcelgate.Organization, error) {
	id, err := parcelgate.NormalizeBusinessID(businessID)
	if err != nil {
		return nil, parcelgate.Errorf(parcelgate.ENOTFOUND, "organization %s not found in %s", businessID, env)
	}
	o, err := scanOrganization(s.db.queryRow(ctx, `SELECT `+orgColumns+` FROM organizations WHERE environment = ? AND business_id = ?`, string(env), id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, parcelgate.Errorf(parcelgate.ENOTFOUND, "organization %s not found in %s", id, env)
	}
	return o, err
}

// OrganizationByID returns the organization with internal id. It takes no
// caller: it is machinery that reads the organization a token or console
// session already names (see parcelgate.OrganizationService).
func (s *OrganizationService) OrganizationByID(ctx context.Context, id int64) (*parcelgate.Organization, error) {
	o, err := scanOrganization(s.db.queryRow(ctx, `SELECT `+orgColumns+` FROM organizations WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, parcelgate.Errorf(parcelgate.ENOTFOUND, "organization not found")
	}
	return o, err
}

// ListOrganizations pages the organizations in c's scope (see
// parcelgate.OrganizationService): by business ID (the whole list when
// p.Size is 0), or newest first by key both ways. Only a caller that may
// ActionOperate.
func (s *OrganizationService) ListOrganizations(ctx context.Context, c *parcelgate.Caller, q parcelgate.OrganizationQuery, p parcelgate.PageRequest) (parcelgate.Page[*parcelgate.Organization], error) {
	if err := c.May(parcelgate.ActionOperate); err != nil {
		return parcelgate.Page[*parcelgate.Organization]{}, err
	}
	var scope filterSQL
	scope.tenant(c, "o.environment", "o.id")
	scan := func(rows *sql.Rows) (*parcelgate.Organization, pageKey, error) {
		o, err := scanOrganization(rows)
		if err != nil {
			return nil, pageKey{}, err
		}
		return o, pageKey{id: o.ID}, nil
	}
	if q.NewestFirst {
		return keysetPage(ctx, s.db.primary(), newestFirstQuery(&scope, "organizations o", "o", ""), p, orgColumnsOf("o"), "", scan)
	}
	byName := func(rows *sql.Rows) (*parcelgate.Organization, pageKey, error) {
		o, _, err := scan(rows)
		if err != nil {
			return nil, pageKey{}, err
		}
		return o, pageKey{text: o.BusinessID}, nil
	}
	if p.Size == 0 && p.After == "" {
		// The whole list in one answer (every environment's, by business
		// ID then environment).
		return keysetPage(ctx, s.db.primary(), namedQuery(false, `SELECT `+orgColumnsOf("o")+` FROM organizations o WHERE `+scope.sql()+` ORDER BY business_id, environment`, scope.args), p, "", "", byName)
	}
	// The operator API's pages (decisions §53): one environment's
	// organizations by business ID, unique there, from the key after
	// p.After, served in that order by the unique (environment,
	// business_id) index.
	afterKey(&scope, "o.business_id", p)
	pq, err := environmentQuery(c, "organizations", `SELECT `+orgColumnsOf("o")+` FROM organizations o WHERE `+scope.sql()+` ORDER BY o.business_id`, scope.args, p)
	if err != nil {
		return parcelgate.Page[*parcelgate.Organization]{Items: []*parcelgate.Organization{}}, err
	}
	return keysetPage(ctx, s.db.primary(), pq, p, "", "", byName)
}

// HasOrganizations reports whether any organization exists, in either
// environment. It takes no caller: it runs at start-up, before there is
// one (demo seeding).
func (s *OrganizationService) HasOrganizations(ctx context.Context) (bool, error) {
	var n int
	err := s.db.queryRow(ctx, `SELECT COUNT(*) FROM (SELECT 1 FROM organizations LIMIT 1) x`).Scan(&n)
	return n > 0, err
}

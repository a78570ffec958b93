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
	if c.Environment != "" && c.Environment != o.Environment {
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

// inScope reports whether the organization orgID of env is in the scope of
// the operator's caller c: c's environment (every one when c names none)
// and c's organization when c names one (decisions §4). Outside it an
// object answers as a missing one. It is operatorScope's rule for an
// object already read, before a statement could ask it.
func inScope(c *parcelgate.Caller, env parcelgate.Environment, orgID int64) bool {
	return (c.Environment == "" || c.Environment == env) && (c.OrgID == 0 || c.OrgID == orgID)
}

// operatorScope adds to f the scope of the operator's caller c, on the
// rows whose environment and organization are the columns envCol and
// orgCol (decisions §4): c's environment when c names one
// (EnvironmentOperator(env); every environment for
// EnvironmentOperator("")), and c's organization when c names one
// (OperatorCaller(org)). Outside it an object answers as a missing one.
// Only what c names becomes a condition, a plain equality the planner can
// use an index for. It is the one way a statement is kept to an
// operator's scope; the tenancy scan counts it as naming the tenant key
// of a statement built from f in the same function.
func (f *filterSQL) operatorScope(c *parcelgate.Caller, envCol, orgCol string) {
	if c.Environment != "" {
		f.add(envCol+" = ?", string(c.Environment))
	}
	if c.OrgID != 0 {
		f.add(orgCol+" = ?", c.OrgID)
	}
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
	if err == nil && !inScope(c, o.Environment, o.ID) {
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
	scope.operatorScope(c, "o.environment", "o.id")
	scan := func(rows *sql.Rows) (*parcelgate.Organization, consoleKey, error) {
		o, err := scanOrganization(rows)
		if err != nil {
			return nil, consoleKey{}, err
		}
		return o, consoleKey{0, o.ID}, nil
	}
	if q.NewestFirst {
		return newestFirstPage(ctx, s.db.primary(), &scope, "organizations o", orgColumnsOf("o"), "", "o.id", p, scan)
	}
	if p.Size != 0 || p.After != "" {
		// Not offered: the operator API's list is one answer.
		return parcelgate.Page[*parcelgate.Organization]{}, parcelgate.Errorf(parcelgate.EINVALID, "Only the newest-first list of organizations is paged.")
	}
	return namedPage(ctx, s.db.primary(), c, `SELECT `+orgColumnsOf("o")+` FROM organizations o WHERE `+scope.sql()+` ORDER BY business_id, environment`, scope.args, p,
		func(rows *sql.Rows) (*parcelgate.Organization, string, error) {
			o, _, err := scan(rows)
			return o, "", err
		})
}

// HasOrganizations reports whether any organization exists, in either
// environment. It takes no caller: it runs at start-up, before there is
// one (demo seeding).
func (s *OrganizationService) HasOrganizations(ctx context.Context) (bool, error) {
	var n int
	err := s.db.queryRow(ctx, `SELECT COUNT(*) FROM (SELECT 1 FROM organizations LIMIT 1) x`).Scan(&n)
	return n > 0, err
}

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

func (s *OrganizationService) CreateOrganization(ctx context.Context, o *parcelgate.Organization) error {
	if err := o.Validate(); err != nil {
		return err
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

func (s *OrganizationService) FindOrganization(ctx context.Context, env parcelgate.Environment, businessID string) (*parcelgate.Organization, error) {
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

// organizationByID returns the organization with internal id.
func (s *OrganizationService) organizationByID(ctx context.Context, id int64) (*parcelgate.Organization, error) {
	o, err := scanOrganization(s.db.queryRow(ctx, `SELECT `+orgColumns+` FROM organizations WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, parcelgate.Errorf(parcelgate.ENOTFOUND, "organization not found")
	}
	return o, err
}

// OrganizationByID returns the organization with internal id; the domain
// services use it to read a caller's profile.
func (s *OrganizationService) OrganizationByID(ctx context.Context, id int64) (*parcelgate.Organization, error) {
	return s.organizationByID(ctx, id)
}

func (s *OrganizationService) ListOrganizations(ctx context.Context, env parcelgate.Environment) ([]*parcelgate.Organization, error) {
	rows, err := s.db.query(ctx, `SELECT `+orgColumns+` FROM organizations WHERE environment = ? ORDER BY business_id`, string(env))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*parcelgate.Organization{}
	for rows.Next() {
		o, err := scanOrganization(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, rows.Err()
}

// HasOrganizations reports whether any organization exists, in either
// environment.
func (s *OrganizationService) HasOrganizations(ctx context.Context) (bool, error) {
	var n int
	err := s.db.queryRow(ctx, `SELECT COUNT(*) FROM (SELECT 1 FROM organizations LIMIT 1) x`).Scan(&n)
	return n > 0, err
}

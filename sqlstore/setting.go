package sqlstore

import (
	"context"
	"database/sql"
	"errors"
)

// SettingService keeps the small named settings one instance claims for all
// (the demo's seeding). Its methods take no caller: they are the server's
// own machinery, read and written at start-up before there is one; no
// operator action writes a setting.
type SettingService struct{ db *DB }

// NewSettingService returns the SettingService over db.
func NewSettingService(db *DB) *SettingService { return &SettingService{db: db} }

// Setting returns the value of a shared setting, "" when unset.
func (s *SettingService) Setting(ctx context.Context, name string) (string, error) {
	var v string
	err := s.db.queryRow(ctx, `SELECT value FROM settings WHERE name = ?`, name).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return v, err
}

// DeleteSetting removes a shared setting.
func (s *SettingService) DeleteSetting(ctx context.Context, name string) error {
	_, err := s.db.exec(ctx, `DELETE FROM settings WHERE name = ?`, name)
	return err
}

// ClaimSetting sets name to value unless it is set already, and reports
// whether this call set it. Instances that start together use it to do a
// one-time job (seeding the demo) exactly once.
func (s *SettingService) ClaimSetting(ctx context.Context, name, value string) (bool, error) {
	res, err := s.db.exec(ctx, `INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING`, name, value)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

-- Foundation: organizations, credentials of both token services, catalogs,
-- token keys and the change clock. Instants are integer microseconds since
-- the Unix epoch (0 = none).

CREATE TABLE organizations (
    id              {{serial}},
    environment     TEXT NOT NULL,
    business_id     TEXT NOT NULL,
    name            TEXT NOT NULL,
    contract_number TEXT NOT NULL DEFAULT '',
    address         TEXT NOT NULL DEFAULT '',
    created_at      BIGINT NOT NULL,
    UNIQUE (environment, business_id)
);

CREATE TABLE gateway_clients (
    client_id   TEXT PRIMARY KEY,
    secret_hash TEXT NOT NULL,
    org_id      BIGINT NOT NULL REFERENCES organizations (id),
    versions    TEXT NOT NULL,
    created_at  BIGINT NOT NULL,
    revoked_at  BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX gateway_clients_org ON gateway_clients (org_id);

-- Usernames are unique across environments: a Basic login names no
-- environment.
CREATE TABLE service_accounts (
    username      TEXT PRIMARY KEY,
    password_hash TEXT NOT NULL,
    org_id        BIGINT NOT NULL REFERENCES organizations (id),
    roles         TEXT NOT NULL,
    failed_logins INTEGER NOT NULL DEFAULT 0,
    locked_until  BIGINT NOT NULL DEFAULT 0,
    created_at    BIGINT NOT NULL,
    revoked_at    BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX service_accounts_org ON service_accounts (org_id);

CREATE TABLE catalogs (
    id              {{serial}},
    environment     TEXT NOT NULL,
    retailer_org_id BIGINT NOT NULL REFERENCES organizations (id),
    external_id     TEXT NOT NULL,
    name            TEXT NOT NULL,
    catalog_type    TEXT NOT NULL,
    created_at      BIGINT NOT NULL,
    UNIQUE (retailer_org_id, external_id)
);

CREATE TABLE catalog_suppliers (
    catalog_id      BIGINT NOT NULL REFERENCES catalogs (id),
    supplier_org_id BIGINT NOT NULL REFERENCES organizations (id),
    PRIMARY KEY (catalog_id, supplier_org_id)
);
CREATE INDEX catalog_suppliers_supplier ON catalog_suppliers (supplier_org_id, catalog_id);

-- Keys that seal access tokens. A retired key still opens tokens for a
-- while, so a rotation does not log anybody out.
CREATE TABLE token_keys (
    id         BIGINT PRIMARY KEY,
    secret     {{blob}} NOT NULL,
    created_at BIGINT NOT NULL,
    retired_at BIGINT NOT NULL DEFAULT 0
);

-- One row per environment: the last modification stamp handed out. See
-- nextStamp.
CREATE TABLE change_clock (
    environment TEXT PRIMARY KEY,
    last_us     BIGINT NOT NULL
);
INSERT INTO change_clock (environment, last_us) VALUES ('production', 0), ('test', 0);

-- Settings shared by every instance (e.g. whether the demo was seeded).
CREATE TABLE settings (
    name  TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

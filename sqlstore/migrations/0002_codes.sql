-- Shipment data (EDI), sending codes and errand codes (decisions §5).

-- A shipment belongs to one organization (and so one environment). Tracking
-- numbers and parcel IDs are unique per organization, not per environment:
-- a uniqueness check across tenants would tell one tenant that another holds
-- a number. sender and receiver are address JSON documents.
CREATE TABLE shipments (
    id              {{serial}},
    org_id          BIGINT NOT NULL REFERENCES organizations (id),
    environment     TEXT NOT NULL,
    tracking_number TEXT NOT NULL,
    service_code    TEXT NOT NULL,
    sender          TEXT NOT NULL,
    receiver        TEXT NOT NULL,
    status          TEXT NOT NULL,
    created_at      BIGINT NOT NULL,
    delivered_at    BIGINT NOT NULL DEFAULT 0,
    UNIQUE (org_id, tracking_number)
);

-- Weight (kg) and dimensions (cm) are NULL when not given.
CREATE TABLE parcels (
    shipment_id  BIGINT NOT NULL REFERENCES shipments (id),
    position     INTEGER NOT NULL,
    org_id       BIGINT NOT NULL REFERENCES organizations (id),
    parcel_id    TEXT NOT NULL,
    package_code TEXT NOT NULL DEFAULT '',
    weight       DOUBLE PRECISION,
    length       DOUBLE PRECISION,
    width        DOUBLE PRECISION,
    height       DOUBLE PRECISION,
    locker_size  TEXT NOT NULL,
    PRIMARY KEY (shipment_id, position),
    UNIQUE (org_id, parcel_id)
);

-- Every code ever handed out. A sending code has parcel_id ''; an errand
-- code names its parcel and the parcel's shipment. A code is active while
-- released_at = 0 and expires_at is in the future. released_at is set when
-- the shipment is delivered, or when an expired code is reclaimed because a
-- new code drew the same value; the row stays as a record of who held the
-- code when.
--
-- The partial unique indexes are what make codes unique across instances:
-- no two unreleased rows of an environment share a code, and a shipment (or
-- parcel) has at most one unreleased code. Expiry cannot be in an index
-- predicate (it depends on the time), so an expired but unreleased code
-- still holds its index entry until an allocation that draws it releases it
-- (see allocateCode); every read treats it as gone already.
CREATE TABLE codes (
    id              {{serial}},
    environment     TEXT NOT NULL,
    code            TEXT NOT NULL,
    org_id          BIGINT NOT NULL REFERENCES organizations (id),
    tracking_number TEXT NOT NULL,
    parcel_id       TEXT NOT NULL DEFAULT '',
    created_at      BIGINT NOT NULL,
    expires_at      BIGINT NOT NULL,
    released_at     BIGINT NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX codes_active_code ON codes (environment, code) WHERE released_at = 0;
CREATE UNIQUE INDEX codes_active_holder ON codes (org_id, tracking_number, parcel_id) WHERE released_at = 0;
CREATE INDEX codes_active_expiry ON codes (environment, expires_at) WHERE released_at = 0;

-- The admin token parcelgate generated when started without one
-- (decisions §21, the operator API): kept across restarts of the same
-- database, so the token printed at the first start keeps working. Only
-- its SHA-256 is kept; one row at most.
CREATE TABLE admin_token (
    id         BIGINT PRIMARY KEY CHECK (id = 1),
    hash       {{blob}} NOT NULL,
    created_at BIGINT NOT NULL
);

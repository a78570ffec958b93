-- The request journal: the last API calls of each organization,
-- bodies capped and secrets redacted, shared by every instance. Pruned to a
-- bound per organization as it is written.
CREATE TABLE request_journal (
    id            {{serial}},
    environment   TEXT NOT NULL,
    org_id        BIGINT NOT NULL,
    business_id   TEXT NOT NULL,
    request_id    TEXT NOT NULL,
    at            BIGINT NOT NULL,
    method        TEXT NOT NULL,
    path          TEXT NOT NULL,
    query         TEXT NOT NULL,
    route         TEXT NOT NULL,
    status        INTEGER NOT NULL,
    latency_us    BIGINT NOT NULL,
    request_body  TEXT NOT NULL,
    response_body TEXT NOT NULL,
    truncated     INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX request_journal_org ON request_journal (org_id, id);
CREATE INDEX request_journal_env ON request_journal (environment, id);
CREATE INDEX request_journal_request ON request_journal (request_id);

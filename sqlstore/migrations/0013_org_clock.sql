-- Stamp spaces per organization (decisions §6 change polling). An
-- order's transaction used to take the environment's one change_clock row,
-- so every order of every organization committed one at a time. Orders
-- (their creation, changes and the engine's moves) now take the clock of
-- their organization: the row here, with the environment's row held
-- shared, so organizations commit in parallel. Writers whose changes reach
-- the feeds of several organizations (products and balances of a supplier
-- published to retailers) take the environment's row exclusively, as
-- before, and stamp past every organization's clock. See sqlstore/stamp.go.
-- No foreign key: a clock row is bookkeeping that must never stand in the
-- way of removing an organization (organization ids are never reused).
CREATE TABLE org_clock (
    org_id      BIGINT PRIMARY KEY,
    environment TEXT NOT NULL,
    last_us     BIGINT NOT NULL
);

-- The D1 schema of the worker (cmd/worker): sqlstore's SQLite schema.
-- Written by `go test ./engine/idem/sqlstore -run D1Schema -update`; a test keeps the two the same.

CREATE TABLE IF NOT EXISTS idempotency_keys (
  account        TEXT    NOT NULL,
  idem_key       TEXT    NOT NULL,
  fingerprint    TEXT    NOT NULL,
  state          TEXT    NOT NULL, -- 'in-flight' or 'done'
  status         INTEGER NOT NULL, -- the saved answer's status; 0 while in flight
  body           BLOB,          -- the saved answer's body; NULL while in flight
  created        BIGINT  NOT NULL, -- µs since 1970, as every time here
  expires_at     BIGINT  NOT NULL,
  locked_until   BIGINT  NOT NULL,
  fence          BIGINT  NOT NULL,
  recovery_point TEXT    NOT NULL,
  PRIMARY KEY (account, idem_key)
);

CREATE INDEX IF NOT EXISTS idempotency_keys_expires_at ON idempotency_keys (expires_at);

CREATE INDEX IF NOT EXISTS idempotency_keys_in_flight ON idempotency_keys (locked_until) WHERE state = 'in-flight';

CREATE TABLE IF NOT EXISTS payments (
  id        TEXT    PRIMARY KEY,
  account   TEXT    NOT NULL,
  amount    BIGINT  NOT NULL,
  currency  TEXT    NOT NULL,
  status    TEXT    NOT NULL,
  charge_id TEXT    NOT NULL,
  idem_key  TEXT    NOT NULL,
  created   BIGINT  NOT NULL
);

CREATE TABLE IF NOT EXISTS charges (
  seq INTEGER PRIMARY KEY,
  id         TEXT   NOT NULL UNIQUE,
  account    TEXT   NOT NULL,
  payment_id TEXT   NOT NULL UNIQUE, -- one charge per payment: the card network's idempotency
  amount     BIGINT NOT NULL,
  currency   TEXT   NOT NULL,
  idem_key   TEXT   NOT NULL,
  created    BIGINT NOT NULL
);

CREATE INDEX IF NOT EXISTS charges_account_created ON charges (account, created);

CREATE INDEX IF NOT EXISTS charges_key ON charges (account, idem_key);

CREATE INDEX IF NOT EXISTS payments_key ON payments (account, idem_key);

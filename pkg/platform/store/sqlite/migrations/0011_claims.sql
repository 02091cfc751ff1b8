-- Provisioning claims (store.Store.ClaimPending) and the tokens epoch
-- (store.Store.TokensEpoch).
ALTER TABLE objects ADD COLUMN claimed_by TEXT NOT NULL DEFAULT '';
ALTER TABLE objects ADD COLUMN claim_until INTEGER NOT NULL DEFAULT 0;
ALTER TABLE objects ADD COLUMN claim_gen INTEGER NOT NULL DEFAULT 0;

INSERT OR IGNORE INTO counters (name, value) VALUES ('tokens_epoch', 0);

-- Run-time secrets of a team server (Google's token set), sealed with the team's data_key
-- (store/sealed.rs): the nonce, then the XChaCha20-Poly1305 ciphertext with its tag.

CREATE TABLE sealed_secrets (
    name       TEXT PRIMARY KEY,
    sealed     BYTEA NOT NULL,
    updated_at TEXT NOT NULL
);

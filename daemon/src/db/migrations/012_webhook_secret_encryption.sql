-- Webhook signing secrets are stored encrypted: 'enc:v1:' + base64url(iv | AES-256-GCM ciphertext |
-- tag), under a key derived from SIGNING_SECRET (services/webhook-secrets.ts). SQL cannot know
-- SIGNING_SECRET, so the plaintext rows of earlier versions are encrypted in place by the daemon at
-- start-up, before it serves or delivers. NOT VALID lets those rows stand until then, while every
-- secret written from now on (insert or update) must already be ciphertext.
alter table webhooks add constraint webhooks_secret_encrypted check (secret like 'enc:v1:%') not valid;
comment on column webhooks.secret is 'Encrypted signing secret (enc:v1:…); never plaintext after the daemon has started once.';

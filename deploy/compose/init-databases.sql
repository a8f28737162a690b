-- Runs once, on the first start of an empty PostgreSQL volume (docker-entrypoint-initdb.d),
-- as POSTGRES_USER (`platform`). One database per service, owned by the application role
-- (docs/conventions.md); each service's migrate job creates its tables.
CREATE DATABASE svc_gateway OWNER platform;
CREATE DATABASE svc_trading OWNER platform;
CREATE DATABASE svc_ledger OWNER platform;
CREATE DATABASE svc_wallet_registry OWNER platform;
CREATE DATABASE svc_payouts OWNER platform;
CREATE DATABASE svc_collections OWNER platform;
CREATE DATABASE svc_notifier OWNER platform;
CREATE DATABASE svc_webhook_delivery OWNER platform;

// What a seeding needs to know of retention, stated once for every seeder: how long
// webhook-delivery keeps a finished delivery (read by the service's own config from the
// environment it runs with), and how far inside a window seeded rows stay.
'use strict';

const path = require('node:path');

const DAY_MS = 24 * 60 * 60 * 1000;
const REPO_ROOT = path.join(__dirname, '..', '..');

/** Seeded rows stay this far inside their retention window, so none falls out of it while a bench runs. */
const WINDOW_MARGIN_MS = DAY_MS;

/** How long a webhook-delivery started with `env` keeps a finished delivery (its built config reads it). */
function deliveryWindowMs(env) {
  const { loadConfig } = require(path.join(REPO_ROOT, 'libs', 'config', 'dist', 'index.js'));
  const { configSchema, deliveryRetentionDays } = require(
    path.join(REPO_ROOT, 'services', 'webhook-delivery', 'dist', 'config.js'),
  );
  return deliveryRetentionDays(loadConfig(configSchema, env)) * DAY_MS;
}

module.exports = { WINDOW_MARGIN_MS, deliveryWindowMs };

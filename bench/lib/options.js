// The bench's settings from the environment, each bounded: a typo or an absurd value stops
// the run before it starts anything. CommonJS so the unit project's jest loads it directly.
'use strict';

/** An integer from `env[name]` within min..max, or `fallback` when unset. */
function boundedInt(env, name, fallback, min, max) {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max)
    throw new Error(`${name} must be an integer ${min}..${max}, got "${raw}"`);
  return value;
}

/**
 * The sections to run, in `known` order: BENCH_SECTIONS as a comma list, `all` for every
 * known one, unset for `defaults`. An unknown name is an error.
 */
function parseSections(raw, known, defaults) {
  if (raw === undefined || raw.trim() === '') return [...defaults];
  const asked = raw
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  if (asked.includes('all')) return [...known];
  const unknown = asked.filter((name) => !known.includes(name));
  if (unknown.length > 0)
    throw new Error(`unknown section(s) ${unknown.join(', ')} (expected ${known.join(', ')} or all)`);
  return known.filter((name) => asked.includes(name));
}

module.exports = { boundedInt, parseSections };

/**
 * The Prometheus Operator's kinds (monitoring.coreos.com/v1 ServiceMonitor and
 * PrometheusRule) have no package of schemas here: their shape is checked by
 * hand, for the fields these manifests use, and any other field is refused so a
 * misspelling cannot pass silently. What they select and what the alerts read
 * is checked in monitoring.spec.ts.
 */
import type { K8sObject } from './repository';

/** A Prometheus duration as written here: a whole number of ms, s, m or h. */
const DURATION = /^(\d+)(ms|s|m|h)$/;
const SECONDS_PER: Record<string, number> = { ms: 0.001, s: 1, m: 60, h: 3600 };
const SERVICE_MONITOR_SPEC_KEYS = [
  'selector',
  'endpoints',
  'namespaceSelector',
  'jobLabel',
  'targetLabels',
  'podTargetLabels',
  'sampleLimit',
];
const ENDPOINT_KEYS = [
  'port',
  'path',
  'interval',
  'scrapeTimeout',
  'scheme',
  'honorLabels',
  'relabelings',
  'metricRelabelings',
];
const RULE_KEYS = ['alert', 'record', 'expr', 'for', 'keep_firing_for', 'labels', 'annotations'];
export const ALERT_SEVERITIES = ['critical', 'warning', 'info'];

export function durationSeconds(value: unknown): number | null {
  const match = typeof value === 'string' ? DURATION.exec(value) : null;
  return match ? Number(match[1]) * SECONDS_PER[match[2]] : null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function stringMap(value: unknown): boolean {
  return isRecord(value) && Object.values(value).every((entry) => typeof entry === 'string');
}

function unknownKeys(value: Record<string, unknown>, known: string[], where: string): string[] {
  return Object.keys(value)
    .filter((key) => !known.includes(key))
    .map((key) => `${where}: unknown field ${key}`);
}

function endpointProblems(endpoint: unknown, index: number): string[] {
  const where = `spec.endpoints[${index}]`;
  if (!isRecord(endpoint)) return [`${where}: expected an object`];
  const problems = unknownKeys(endpoint, ENDPOINT_KEYS, where);
  if (typeof endpoint.port !== 'string' || endpoint.port === '')
    problems.push(`${where}.port: expected the name of a Service port`);
  if (endpoint.path !== undefined && (typeof endpoint.path !== 'string' || !endpoint.path.startsWith('/')))
    problems.push(`${where}.path: expected an absolute path`);
  const interval = endpoint.interval === undefined ? 30 : durationSeconds(endpoint.interval);
  const timeout = endpoint.scrapeTimeout === undefined ? 10 : durationSeconds(endpoint.scrapeTimeout);
  if (interval === null) problems.push(`${where}.interval: expected a duration such as 30s`);
  if (timeout === null) problems.push(`${where}.scrapeTimeout: expected a duration such as 10s`);
  if (interval !== null && timeout !== null && timeout > interval)
    problems.push(`${where}: scrapeTimeout longer than interval`);
  return problems;
}

export function serviceMonitorProblems(object: K8sObject): string[] {
  const spec = (object as { spec?: unknown }).spec;
  if (!isRecord(spec)) return ['spec: expected an object'];
  const problems = unknownKeys(spec, SERVICE_MONITOR_SPEC_KEYS, 'spec');
  const selector = spec.selector;
  if (
    !isRecord(selector) ||
    !stringMap(selector.matchLabels) ||
    Object.keys(selector.matchLabels as object).length === 0
  ) {
    problems.push('spec.selector.matchLabels: expected labels of the Service to scrape');
  }
  if (!Array.isArray(spec.endpoints) || spec.endpoints.length === 0)
    return [...problems, 'spec.endpoints: expected at least one endpoint'];
  return [...problems, ...spec.endpoints.flatMap(endpointProblems)];
}

function ruleProblems(rule: unknown, where: string): string[] {
  if (!isRecord(rule)) return [`${where}: expected an object`];
  const problems = unknownKeys(rule, RULE_KEYS, where);
  const isAlert = typeof rule.alert === 'string' && rule.alert !== '';
  const isRecording = typeof rule.record === 'string' && rule.record !== '';
  if (isAlert === isRecording) problems.push(`${where}: expected exactly one of alert and record`);
  if (typeof rule.expr !== 'string' || rule.expr.trim() === '')
    problems.push(`${where}.expr: expected a PromQL expression`);
  if (rule.for !== undefined && durationSeconds(rule.for) === null)
    problems.push(`${where}.for: expected a duration such as 5m`);
  if (rule.labels !== undefined && !stringMap(rule.labels)) problems.push(`${where}.labels: expected string values`);
  if (rule.annotations !== undefined && !stringMap(rule.annotations))
    problems.push(`${where}.annotations: expected string values`);
  if (isAlert) {
    const severity = (rule.labels as Record<string, string> | undefined)?.severity;
    if (!ALERT_SEVERITIES.includes(severity ?? ''))
      problems.push(`${where}.labels.severity: expected one of ${ALERT_SEVERITIES.join(', ')}`);
    if (typeof (rule.annotations as Record<string, string> | undefined)?.summary !== 'string')
      problems.push(`${where}.annotations.summary: missing`);
  }
  return problems;
}

export function prometheusRuleProblems(object: K8sObject): string[] {
  const spec = (object as { spec?: unknown }).spec;
  if (!isRecord(spec)) return ['spec: expected an object'];
  const problems = unknownKeys(spec, ['groups'], 'spec');
  if (!Array.isArray(spec.groups) || spec.groups.length === 0)
    return [...problems, 'spec.groups: expected at least one group'];
  const groupNames = new Set<string>();
  const alertNames = new Set<string>();
  spec.groups.forEach((group: unknown, index: number) => {
    const where = `spec.groups[${index}]`;
    if (!isRecord(group) || typeof group.name !== 'string' || !Array.isArray(group.rules) || group.rules.length === 0) {
      problems.push(`${where}: expected a name and at least one rule`);
      return;
    }
    problems.push(...unknownKeys(group, ['name', 'interval', 'rules'], where));
    if (groupNames.has(group.name)) problems.push(`${where}: group ${group.name} appears twice`);
    groupNames.add(group.name);
    group.rules.forEach((rule: unknown, ruleIndex: number) => {
      problems.push(...ruleProblems(rule, `${where}.rules[${ruleIndex}]`));
      const alert = isRecord(rule) ? rule.alert : undefined;
      if (typeof alert === 'string' && alertNames.has(alert))
        problems.push(`${where}.rules[${ruleIndex}]: alert ${alert} appears twice`);
      if (typeof alert === 'string') alertNames.add(alert);
    });
  });
  return problems;
}

/**
 * The partner plane's metrics, beside the platform's shared families:
 * - gateway_http_requests_total{route, method, status} and
 *   gateway_http_request_duration_seconds{route, method}: every answer, by the
 *   route template it was for (`/v1/orders/{id}`, never the path with its id;
 *   `unmatched` for a path no route has), so the series are bounded by the
 *   operation table;
 * - gateway_authentication_refusals_total{reason}: the reason the uniform 401
 *   hides from the caller (a fixed set; never the key, the signature or the secret);
 * - gateway_rate_limit_refusals_total{limit}: 429s, by the limit reached
 *   (`partner`: the partner's per-minute limit; `address`: the refused
 *   authentications one client address may cause in a minute).
 */
import { counter, histogram, metricsRegistry, MS_PER_SECOND, Registry } from '@platform/metrics';
import type { AuthFailureReason } from '../domain/request-signature';
import { PathTemplate, PathTemplateIndex } from './path-templates';

/** The label of a path that matches no route (a 404). */
export const UNMATCHED_ROUTE = 'unmatched';
/** Every method an answer is labelled with; anything else Node accepts is `other`. */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

export type RateLimitKind = 'partner' | 'address';

/**
 * The route template a request path is for. Templates are tried in the order
 * given (literal paths before parameterised ones, as the router registers
 * them), so `/v1/transfers/batch` is never read as a transfer id.
 */
export class RouteTemplates {
  private readonly index: PathTemplateIndex<{ path: PathTemplate }>;

  constructor(templates: readonly string[]) {
    this.index = new PathTemplateIndex(
      [...new Set(templates)].map((template) => ({ path: new PathTemplate(template) })),
    );
  }

  of(path: string): string {
    const { segments, items } = this.index.candidates(path);
    for (const item of items) if (item.path.fit(segments) !== null) return item.path.template;
    return UNMATCHED_ROUTE;
  }
}

export function methodLabel(method: string | undefined): string {
  return method && METHODS.has(method) ? method : 'other';
}

interface AnswerSeries {
  seconds: { observe(seconds: number): void };
  answersByStatus: Map<number, { inc(): void }>;
}

export class GatewayMetrics {
  private readonly seriesByRoute = new Map<string, Map<string, AnswerSeries>>();
  private readonly requests;
  private readonly requestSeconds;
  private readonly authenticationRefusals;
  private readonly rateLimitRefusals;

  constructor(registry: Registry = metricsRegistry) {
    this.requests = counter(
      {
        name: 'gateway_http_requests_total',
        help: 'Partner API answers, by route template, method and HTTP status (499: the client went away before the answer).',
        labelNames: ['route', 'method', 'status'] as const,
      },
      registry,
    );
    this.requestSeconds = histogram(
      {
        name: 'gateway_http_request_duration_seconds',
        help: 'Time from a partner API request arriving to its answer being sent, by route template and method.',
        labelNames: ['route', 'method'] as const,
      },
      registry,
    );
    this.authenticationRefusals = counter(
      {
        name: 'gateway_authentication_refusals_total',
        help: 'Requests refused with the uniform 401, by the reason only the operators see (missing_header, bad_signature, replayed_nonce, …).',
        labelNames: ['reason'] as const,
      },
      registry,
    );
    this.rateLimitRefusals = counter(
      {
        name: 'gateway_rate_limit_refusals_total',
        help: "Requests refused with 429, by the limit reached (partner: the partner's per-minute limit; address: too many refused authentications from one client address).",
        labelNames: ['limit'] as const,
      },
      registry,
    );
    for (const limit of ['partner', 'address'] as const) this.rateLimitRefusals.inc({ limit }, 0);
  }

  requestAnswered(route: string, method: string, status: number, durationMs: number): void {
    const series = this.seriesOf(route, method);
    let answers = series.answersByStatus.get(status);
    if (answers === undefined) {
      answers = this.requests.labels({ route, method, status: String(status) });
      series.answersByStatus.set(status, answers);
    }
    answers.inc();
    series.seconds.observe(durationMs / MS_PER_SECOND);
  }

  /**
   * The labelled series of a route and method, made once: every answer is counted, and a label
   * object (and the histogram's closure) per answer was garbage on every request. Bounded as the
   * series themselves are (route templates × methods × statuses).
   */
  private seriesOf(route: string, method: string): AnswerSeries {
    let byMethod = this.seriesByRoute.get(route);
    if (byMethod === undefined) {
      byMethod = new Map();
      this.seriesByRoute.set(route, byMethod);
    }
    let series = byMethod.get(method);
    if (series === undefined) {
      series = { seconds: this.requestSeconds.labels({ route, method }), answersByStatus: new Map() };
      byMethod.set(method, series);
    }
    return series;
  }

  authenticationRefused(reason: AuthFailureReason): void {
    this.authenticationRefusals.inc({ reason });
  }

  rateLimitRefused(limit: RateLimitKind): void {
    this.rateLimitRefusals.inc({ limit });
  }
}

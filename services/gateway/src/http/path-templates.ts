/**
 * Path templates of the operation table (`/v1/orders/{id}`), matched segment by
 * segment: a request's path is split once and compared only with the templates
 * of as many segments, in the order given (literal paths before parameterised
 * ones, so `/v1/transfers/batch` is never read as an id). The match is exact:
 * case-sensitive, no trailing slash, a parameter is one non-empty segment, and a
 * literal segment is compared as sent (still percent-encoded), as Express' own
 * router did. Every request is matched (by the router, and by the metrics and
 * the trace span for their route label), so this replaces a regular expression
 * per template and request with string comparisons over a handful of candidates.
 */

/** A template's segments: the literal text, or null where a `{parameter}` stands. */
export class PathTemplate {
  readonly segments: ReadonlyArray<string | null>;
  readonly parameterNames: readonly string[];

  constructor(readonly template: string) {
    const names: string[] = [];
    this.segments = template.split('/').map((segment) => {
      const parameter = /^\{([A-Za-z]+)\}$/.exec(segment);
      if (!parameter) return segment;
      names.push(parameter[1]);
      return null;
    });
    this.parameterNames = names;
  }

  /** The raw (still percent-encoded) parameter values when `pathSegments` fits this template, else null. */
  fit(pathSegments: readonly string[]): string[] | null {
    if (pathSegments.length !== this.segments.length) return null;
    const values: string[] = [];
    for (let index = 0; index < pathSegments.length; index += 1) {
      const expected = this.segments[index];
      const actual = pathSegments[index];
      if (expected === null) {
        if (actual.length === 0) return null;
        values.push(actual);
      } else if (expected !== actual) return null;
    }
    return values;
  }
}

/** Items with a path template, grouped by segment count, each group in the order given. */
export class PathTemplateIndex<T extends { path: PathTemplate }> {
  private readonly bySegmentCount = new Map<number, T[]>();

  constructor(items: readonly T[]) {
    for (const item of items) {
      const count = item.path.segments.length;
      const group = this.bySegmentCount.get(count) ?? [];
      group.push(item);
      this.bySegmentCount.set(count, group);
    }
  }

  /** Every item whose template has as many segments as `path`, in the order given, with the split path. */
  candidates(path: string): { segments: string[]; items: readonly T[] } {
    const segments = path.split('/');
    return { segments, items: this.bySegmentCount.get(segments.length) ?? [] };
  }
}

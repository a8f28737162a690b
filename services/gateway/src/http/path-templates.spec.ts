// Proves how a request path meets a template: segment by segment, exactly (case,
// trailing slash, percent-encoding as sent), a parameter being one non-empty
// segment, and among templates of as many segments the first given wins.
import { PathTemplate, PathTemplateIndex } from './path-templates';

describe('PathTemplate', () => {
  const order = new PathTemplate('/orders/{id}');
  const split = (path: string) => path.split('/');

  it('names its parameters in order and gives their raw values', () => {
    const confirm = new PathTemplate('/pushes/{pushId}/x/{id}');
    expect(confirm.parameterNames).toEqual(['pushId', 'id']);
    expect(confirm.fit(split('/pushes/a%20b/x/c'))).toEqual(['a%20b', 'c']);
  });

  it.each(['/orders/', '/orders', '/orders/a/b', '/Orders/a', '/orders/a/', '/%6Frders/a', 'orders/a'])(
    'does not fit %s',
    (path) => {
      expect(order.fit(split(path))).toBeNull();
    },
  );
});

describe('PathTemplateIndex', () => {
  const index = new PathTemplateIndex(
    ['/transfers/batch', '/transfers/{id}', '/transfers/batch/{id}', '/health'].map((template) => ({
      path: new PathTemplate(template),
    })),
  );
  const first = (path: string) => {
    const { segments, items } = index.candidates(path);
    return items.find((item) => item.path.fit(segments) !== null)?.path.template;
  };

  it('offers only the templates of as many segments, literal before parameterised as given', () => {
    expect(first('/transfers/batch')).toBe('/transfers/batch');
    expect(first('/transfers/5')).toBe('/transfers/{id}');
    expect(first('/transfers/batch/5')).toBe('/transfers/batch/{id}');
    expect(first('/health')).toBe('/health');
    expect(index.candidates('/a/b/c/d/e').items).toEqual([]);
  });
});

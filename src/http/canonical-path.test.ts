import { describe, expect, it } from 'vitest';
import { canonicalTarget } from './canonical-path.js';

describe('canonicalTarget', () => {
  it.each([
    ['/metrics', '/metrics'],
    ['/./metrics', '/metrics'],
    ['/%2e/metrics', '/metrics'],
    ['/%2E%2E/metrics', '/metrics'],
    ['/x/../metrics', '/metrics'],
    ['/graphql/../metrics', '/metrics'],
    ['/x/%2e%2e/metrics', '/metrics'],
    ['/x/.%2e/metrics', '/metrics'],
    ['/../../metrics', '/metrics'],
    ['//metrics', '/metrics'],
    ['/metrics/', '/metrics'],
    ['/metrics//', '/metrics'],
    ['/x\\..\\metrics', '/metrics'],
    ['/%6detrics', '/metrics'],
    ['/api/v1/metric/a%2fb', '/api/v1/metric/a%2Fb'],
    ['/api/v1/metric/a%2Fb%20c', '/api/v1/metric/a%2Fb%20c'],
    ['/api/v1/metric/sys.load', '/api/v1/metric/sys.load'],
    ['/api/v1/metric/100%', '/api/v1/metric/100%'],
    ['/', '/'],
    ['/graphql?query={a}&x=/../y', '/graphql?query={a}&x=/../y'],
    ['/./graphql/?a=1#frag', '/graphql?a=1'],
    ['/metrics#/../x', '/metrics'],
  ])('%s → %s', (target, canonical) => {
    expect(canonicalTarget(target)).toBe(canonical);
  });

  it.each(['http://127.0.0.1:4000/metrics', '*', '', 'metrics'])('refuses %j, which is not origin-form', (target) => {
    expect(canonicalTarget(target)).toBeUndefined();
  });
});

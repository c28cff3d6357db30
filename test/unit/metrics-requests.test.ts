// The request metrics (gateway/metrics.ts RequestMetrics): one series per method, route and
// status, cumulative histogram buckets, sum and count, in the Prometheus text of the registry.
import { PlatformMetrics } from '../../gateway/metrics.js';

const line = (text: string, start: string) => text.split('\n').find((l) => l.startsWith(start));
const value = (text: string, start: string) => Number(line(text, start)?.split(' ').pop());

it('counts requests and keeps cumulative duration buckets per route, method and status', async () => {
  const m = new PlatformMetrics({ pool: { totalCount: 0, idleCount: 0, waitingCount: 0 } } as never);
  m.observeRequest('GET', '/api/users/me/', 200, 0.003);
  m.observeRequest('GET', '/api/users/me/', 200, 0.02);
  m.observeRequest('GET', '/api/users/me/', 401, 0.0005);
  m.observeRequest('BREW', undefined, 404, 30);
  const text = await m.text();
  const me = 'method="GET",route="/api/users/me/",status="200"';
  expect(text).toContain('# TYPE http_requests_total counter');
  expect(text).toContain('# TYPE http_request_duration_seconds histogram');
  expect(value(text, `http_requests_total{${me}}`)).toBe(2);
  expect(value(text, 'http_requests_total{method="GET",route="/api/users/me/",status="401"}')).toBe(1);
  expect(value(text, 'http_requests_total{method="other",route="unmatched",status="404"}')).toBe(1);
  expect(value(text, `http_request_duration_seconds_bucket{${me},le="0.0025"}`)).toBe(0);
  expect(value(text, `http_request_duration_seconds_bucket{${me},le="0.005"}`)).toBe(1);
  expect(value(text, `http_request_duration_seconds_bucket{${me},le="0.025"}`)).toBe(2);
  expect(value(text, `http_request_duration_seconds_bucket{${me},le="10"}`)).toBe(2);
  expect(value(text, `http_request_duration_seconds_bucket{${me},le="+Inf"}`)).toBe(2);
  expect(value(text, `http_request_duration_seconds_sum{${me}}`)).toBeCloseTo(0.023);
  expect(value(text, `http_request_duration_seconds_count{${me}}`)).toBe(2);
  // Slower than the largest bucket: only +Inf counts it.
  const slow = 'method="other",route="unmatched",status="404"';
  expect(value(text, `http_request_duration_seconds_bucket{${slow},le="10"}`)).toBe(0);
  expect(value(text, `http_request_duration_seconds_bucket{${slow},le="+Inf"}`)).toBe(1);
});

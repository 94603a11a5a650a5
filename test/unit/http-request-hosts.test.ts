/** The allow-list of `http_request`: exact hosts, a port when given, `*.` for subdomains; and its environment variables. */
import { createHttpRequestTool, hostAllowed, httpRequestFromEnv } from '../../activities/tools/http-request';

const allowed = (url: string, hosts: string[]) => hostAllowed(new URL(url), hosts);

test('a host matches exactly, case aside, on any port unless one is given', () => {
  expect(allowed('https://API.example.com/v1', ['api.example.com'])).toBe(true);
  expect(allowed('http://api.example.com:8080/', ['api.example.com'])).toBe(true);
  expect(allowed('https://evil-api.example.com/', ['api.example.com'])).toBe(false);
  expect(allowed('https://api.example.com.evil.net/', ['api.example.com'])).toBe(false);
  expect(allowed('http://localhost:8080/x', ['localhost:8080'])).toBe(true);
  expect(allowed('http://localhost:8081/x', ['localhost:8080'])).toBe(false);
  expect(allowed('https://localhost/x', ['localhost:443'])).toBe(true); // the scheme's default port
  expect(allowed('http://[::1]:9000/', ['[::1]:9000'])).toBe(true);
});

test('*.domain allows its subdomains, not the domain itself or look-alikes', () => {
  expect(allowed('https://a.example.com/', ['*.example.com'])).toBe(true);
  expect(allowed('https://a.b.example.com/', ['*.example.com'])).toBe(true);
  expect(allowed('https://example.com/', ['*.example.com'])).toBe(false);
  expect(allowed('https://badexample.com/', ['*.example.com'])).toBe(false);
});

test('LIVECONTEXT_HTTP_HOSTS offers the tool (with approval unless LIVECONTEXT_HTTP_APPROVAL=0); unset, it is not', () => {
  expect(httpRequestFromEnv({})).toBeUndefined();
  expect(httpRequestFromEnv({ LIVECONTEXT_HTTP_HOSTS: ' , ' })).toBeUndefined();
  expect(httpRequestFromEnv({ LIVECONTEXT_HTTP_HOSTS: 'api.example.com, localhost:8080' })).toEqual({
    hosts: ['api.example.com', 'localhost:8080'],
    approval: true,
  });
  expect(httpRequestFromEnv({ LIVECONTEXT_HTTP_HOSTS: 'a.io', LIVECONTEXT_HTTP_APPROVAL: '0' })).toEqual({ hosts: ['a.io'], approval: false });
});

test('approval by default names the request; a refused host or a URL that does not parse asks nobody', () => {
  const tool = createHttpRequestTool({ hosts: ['api.example.com'] });
  const ask = tool.needsApproval as (args: { method: string; url: string }) => boolean | string;
  expect(ask({ method: 'POST', url: 'https://api.example.com/charge' })).toBe('http_request POST https://api.example.com/charge');
  expect(ask({ method: 'POST', url: 'https://other.example.com/charge' })).toBe(false);
  expect(ask({ method: 'GET', url: 'not a url' })).toBe(false);
  expect(createHttpRequestTool({ hosts: ['api.example.com'], approval: false }).needsApproval).toBe(false);
  expect(() => createHttpRequestTool({ hosts: [] })).toThrow(/at least one allowed host/);
});

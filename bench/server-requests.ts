/**
 * What a side asks of the dev server: its frontend's request counters (Prometheus `service_requests`, by
 * operation) read before and after, per turn or per agent. Polls are counted too (long polls that returned).
 */
import { round } from './support';

export type RequestCounts = Record<string, number>;

/** The frontend's request counters by operation, or null when the server exposes none. */
export async function frontendRequests(port: number | undefined): Promise<RequestCounts | null> {
  if (!port) return null;
  try {
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    const counts: RequestCounts = {};
    for (const line of text.split('\n')) {
      if (!line.startsWith('service_requests{') || !line.includes('service_name="frontend"')) continue;
      const op = /operation="([^"]+)"/.exec(line)?.[1];
      if (op) counts[op] = (counts[op] ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1));
    }
    return counts;
  } catch {
    return null;
  }
}

/** Requests per unit between two readings, operations that moved only, most first. */
export function requestsPer(before: RequestCounts | null, after: RequestCounts | null, units: number): RequestCounts | null {
  if (!before || !after) return null;
  const per: RequestCounts = {};
  for (const [op, n] of Object.entries(after)) {
    const d = n - (before[op] ?? 0);
    if (d > 0) per[op] = round(d / units, 2);
  }
  return Object.fromEntries(Object.entries(per).sort((a, b) => b[1] - a[1]));
}

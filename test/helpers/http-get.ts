/** One GET for the HTTP tests: on its own socket (no keep-alive pool left behind), bounded in time. */
import { request, type IncomingHttpHeaders } from "node:http";

export interface Got {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

export function httpGet(url: string, headers: Record<string, string> = {}, timeoutMs = 5000): Promise<Got> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent: false, timeout: timeoutMs, headers }, (res) => {
      let body = "";
      res.setEncoding("utf8").on("data", (c: string) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      res.on("error", reject);
    });
    req.once("timeout", () => req.destroy(new Error(`GET ${url}: no answer within ${timeoutMs} ms`)));
    req.once("error", reject);
    req.end();
  });
}

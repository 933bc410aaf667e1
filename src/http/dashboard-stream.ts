/**
 * The page's event stream reader (runs in the browser; see
 * dashboard-script.ts): `/events` read with fetch rather than EventSource.
 * A page's EventSource is held back by the browser while the page loads
 * (its first event came a few hundred ms after the page's first read); a
 * fetch starts at once, and carries the token as a header, not in the URL.
 * It parses the server-sent events the service writes (`event:` and `data:`
 * lines, a blank line after each), and reconnects a second after the stream
 * ends or fails, as an EventSource would; a 401 stops it (the page asks for
 * the token, then opens a new one).
 */
export const DASHBOARD_STREAM = String.raw`
const STREAM_RETRY_MS = 1000;
function openStream(path, on) {
  let ctl = null, closed = false, isOpen = false;
  function dispatch(block) {
    let name = "message", data = "";
    for (const line of block.split("\n")) {
      const colon = line.indexOf(":");
      if (colon <= 0) continue; // a comment, or no field
      const field = line.slice(0, colon), val = line.slice(colon + 1).replace(/^ /, "");
      if (field === "event") name = val;
      else if (field === "data") data += (data ? "\n" : "") + val;
    }
    if (data) on.event(name, data);
  }
  async function run() {
    ctl = new AbortController();
    let unauthorized = false;
    try {
      const res = await fetch(path, { headers: token ? { authorization: "Bearer " + token } : {}, signal: ctl.signal, cache: "no-store" });
      unauthorized = res.status === 401;
      if (!res.ok || !res.body) throw new Error("the event stream answered " + res.status);
      isOpen = true;
      on.open();
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      let text = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        text += value;
        let end;
        while ((end = text.indexOf("\n\n")) >= 0) { dispatch(text.slice(0, end)); text = text.slice(end + 2); }
      }
    } catch (e) {
      // A failed or aborted read ends the stream like its end does.
    }
    isOpen = false;
    if (closed) return;
    on.lost(unauthorized);
    if (!unauthorized) setTimeout(() => { if (!closed) run(); }, STREAM_RETRY_MS);
  }
  run();
  return { get open() { return isOpen; }, close() { closed = true; if (ctl) ctl.abort(); } };
}
`;

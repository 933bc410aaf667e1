/**
 * The change rate's chart (runs in the browser; see dashboard-script.ts):
 * one small inline SVG per bucket, drawn from `/api/rate`, with no library
 * and no resource from elsewhere (the page works on a mesh with no
 * internet). Each chart is scaled to its own peak, which it prints, so a
 * quiet bucket's trickle is visible beside a busy one's.
 */
export const DASHBOARD_CHART = String.raw`
function rateChart(rate) {
  const W = 220, H = 40, sec = rate.stepMs / 1000;
  const charts = ["registry", "needs", "applied", "collect"].map((w) => {
    const counts = rate.counts[w];
    // The newest step is still filling: "now" is the last whole one.
    const now = (counts[counts.length - 2] || 0) / sec;
    let peak = 0, total = 0;
    for (const c of counts) { if (c > peak) peak = c; total += c; }
    const step = W / counts.length;
    let d = "M0," + H;
    counts.forEach((c, i) => { const y = peak ? H - (c / peak) * (H - 2) : H; d += "L" + (i * step).toFixed(1) + "," + y.toFixed(1) + "L" + ((i + 1) * step).toFixed(1) + "," + y.toFixed(1); });
    d += "L" + W + "," + H + "Z";
    const label = w + ": " + rateText(now) + " now, peak " + rateText(peak / sec) + ", " + num(total) + " in the hour";
    return "<figure class='rate' data-bucket='" + w + "' data-total='" + total + "'><svg viewBox='0 0 " + W + " " + H + "' width='" + W + "' height='" + H + "' role='img' aria-label='" + esc(label) + "'>" +
      "<title>" + esc(label) + "</title><rect width='" + W + "' height='" + H + "' fill='#fff'/>" + (peak ? "<path d='" + d + "' fill='#8fb3e8' stroke='#2d5fa8' stroke-width='.6'/>" : "") +
      "</svg><figcaption><b>" + w + "</b> " + num(total) + " in the hour<br>" + rateText(now) + " now · peak " + rateText(peak / sec) + "</figcaption></figure>";
  });
  return "<div id='rate' class='charts'>" + charts.join("") + "</div><p class='muted axis'>one hour ago … now, " + sec + " s steps; counted since this instance started</p>";
}

function rateText(perSecond) {
  return (perSecond >= 10 ? num(Math.round(perSecond)) : perSecond.toFixed(1)) + "/s";
}
`;

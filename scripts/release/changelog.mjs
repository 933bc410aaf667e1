/**
 * A version's section of CHANGELOG.md. A section starts at a second-level
 * heading naming the version in brackets, then an optional date or
 * "Unreleased" after a dash, and runs to the next second-level heading:
 *
 *   ## [0.2.0] - 2026-12-05
 *   ## [0.2.0] - Unreleased
 *   ## [0.1.0]
 */

/** The section of `version`: its heading's date ("Unreleased" while it is made; undefined: none) and its body; undefined when there is none. */
export function sectionOf(changelog, version) {
  const lines = changelog.split("\n");
  const escaped = version.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const heading = new RegExp(`^## \\[${escaped}\\](?:\\s+[-\u2013\u2014]\\s+(.+?))?\\s*$`);
  let start = -1;
  let date;
  for (let i = 0; i < lines.length; i++) {
    const m = heading.exec(lines[i]);
    if (m) {
      start = i;
      date = m[1];
      break;
    }
  }
  if (start < 0) return undefined;
  let end = lines.findIndex((l, i) => i > start && /^## /.test(l));
  if (end < 0) end = lines.length;
  const body = lines
    .slice(start + 1, end)
    .join("\n")
    .trim();
  return { date, body };
}

/** RELEASE-NOTES.md: the section under a title naming the release, and how to check the folder. */
export function releaseNotes({ name, version, date, body }) {
  const when = date === undefined ? "" : ` (${date})`;
  return [
    `# ${name} ${version}${when}`,
    "",
    body,
    "",
    "## Checking this release",
    "",
    "In this folder, `sha256sum -c SHA256SUMS` checks every file against its sum;",
    "the `.cdx.json` files are the CycloneDX SBOMs of the two npm packages.",
    "",
  ].join("\n");
}

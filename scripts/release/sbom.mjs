/**
 * An SBOM whose subject is one package, from what `npm sbom` prints.
 *
 * npm names a local package (the project's root, a workspace) after its
 * folder rather than its package.json (npm/cli#9178): a checkout in
 * `wt-release/` gives a component named "wt-release". And with `-w` npm
 * keeps the project's root as the SBOM's subject and lists the workspace
 * among its components. Here every component's `name` is its package's own
 * (npm's `bom-ref` is `<package name>@<version>`), and the package asked
 * for becomes `metadata.component`, the root dropped when it is not that
 * package. Everything else is npm's as printed.
 */

/** The package name of a bom-ref `name@version` (a scoped name starts with @). */
const packageName = (ref) => ref.slice(0, ref.lastIndexOf("@"));

const named = (c) => ({ ...c, name: packageName(c["bom-ref"]) });

/** `bom` (CycloneDX JSON from `npm sbom`) with `name@version` as its subject, of CycloneDX type `type`. */
export function sbomFor(bom, { name, version, type }) {
  const ref = `${name}@${version}`;
  const root = bom.metadata.component;
  let subject = root;
  let components = bom.components;
  let dependencies = bom.dependencies;
  if (root["bom-ref"] !== ref) {
    subject = components.find((c) => c["bom-ref"] === ref);
    if (subject === undefined) return undefined;
    components = components.filter((c) => c !== subject);
    dependencies = dependencies.filter((d) => d.ref !== root["bom-ref"]);
  }
  return {
    ...bom,
    metadata: { ...bom.metadata, component: { ...named(subject), type } },
    components: components.map(named),
    dependencies,
  };
}

package provisioner

// Version is the release of mesh-provisioner this module belongs to: the
// service, its TypeScript client and this module are released together under
// one version, set in the repository's package.json and written here by
// scripts/set-version.mjs (a unit test holds the two to the same value).
const Version = "0.2.0"

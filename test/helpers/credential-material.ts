/**
 * Credential material for tests of every way to authenticate to nats-server:
 * user nkeys, a TLS CA with a server and a client certificate (made with the
 * `openssl` command), and operator-mode setups (operator, account and user
 * JWTs and creds files) signed with @nats-io/nkeys alone, the way the `nsc`
 * tool signs them (JWT v2: header {typ: "JWT", alg: "ed25519-nkey"}, payload
 * signed by the issuer's nkey, base64url without padding): one without
 * JetStream, and one with JetStream, a full resolver that takes pushed
 * account JWTs (revocations), and users holding the grants `permissions`
 * prints.
 */
import { execFileSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { accessSync, constants as fsc, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { createAccount, createOperator, createUser, type KeyPair } from "@nats-io/nkeys";
import type { Grant } from "../../src/permissions/grants.js";

/** A private temporary directory; `remove()` deletes it. */
export function tempDir(prefix: string): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

// ---- user nkey --------------------------------------------------------------------------

export interface UserNkey {
  readonly publicKey: string; // U…
  readonly seedFile: string; // holds the seed (SU…) and a newline, as `nk -gen user` writes it
}

export function userNkey(dir: string, name = "user.nk"): UserNkey {
  const kp = createUser();
  const seedFile = join(dir, name);
  writeFileSync(seedFile, new TextDecoder().decode(kp.getSeed()) + "\n", { mode: 0o600 });
  return { publicKey: kp.getPublicKey(), seedFile };
}

// ---- TLS --------------------------------------------------------------------------------

/** The openssl binary on PATH, or undefined. */
export function findOpenssl(): string | undefined {
  for (const d of (process.env["PATH"] ?? "").split(delimiter)) {
    const p = join(d, "openssl");
    try {
      accessSync(p, fsc.X_OK);
      return p;
    } catch {
      /* next */
    }
  }
  return undefined;
}

export interface TlsMaterial {
  readonly ca: string;
  /** A CA that signed nothing here: the server's certificate does not verify against it. */
  readonly otherCa: string;
  readonly serverCert: string;
  readonly serverKey: string;
  readonly clientCert: string;
  readonly clientKey: string;
  /** A `tls { … verify: true }` block for the server's configuration (server certificate: IP:127.0.0.1 and DNS:localhost). */
  readonly serverConfig: string;
  /** The same block with a server certificate whose only name is IP:127.0.0.1. */
  readonly ipOnlyServerConfig: string;
}

/**
 * A CA, server certificates for 127.0.0.1 and a client certificate, all signed by the CA.
 * The main server certificate also names DNS:localhost: @nats-io/transport-node, dialing an
 * IP address, leaves the TLS servername empty and Node then checks the certificate against
 * "localhost" (see the test "an IP-only server certificate" in credentials.test.ts).
 */
export function tlsMaterial(openssl: string, dir: string): TlsMaterial {
  const f = (n: string): string => join(dir, n);
  const run = (args: string[]): void => void execFileSync(openssl, args, { cwd: dir, stdio: ["ignore", "ignore", "pipe"] });
  const key = (name: string): void => run(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", f(name)]);
  const ca = (name: string, cn: string): void => {
    key(`${name}.key`);
    run(["req", "-x509", "-new", "-key", f(`${name}.key`), "-sha256", "-days", "2", "-subj", `/CN=${cn}`, "-out", f(`${name}.pem`)]);
  };
  ca("ca", "mesh-provisioner test CA");
  ca("other-ca", "mesh-provisioner other test CA");
  const leaf = (name: string, cn: string, ext: string): void => {
    key(`${name}.key`);
    run(["req", "-new", "-key", f(`${name}.key`), "-subj", `/CN=${cn}`, "-out", f(`${name}.csr`)]);
    writeFileSync(f(`${name}.ext`), ext);
    run([
      "x509",
      "-req",
      "-in",
      f(`${name}.csr`),
      "-CA",
      f("ca.pem"),
      "-CAkey",
      f("ca.key"),
      "-CAcreateserial",
      "-days",
      "2",
      "-sha256",
      "-extfile",
      f(`${name}.ext`),
      "-out",
      f(`${name}.pem`),
    ]);
  };
  const serverExt = (san: string): string => `subjectAltName=${san}\nextendedKeyUsage=serverAuth\nkeyUsage=digitalSignature,keyEncipherment\n`;
  leaf("server", "127.0.0.1", serverExt("IP:127.0.0.1,DNS:localhost"));
  leaf("server-ip", "127.0.0.1", serverExt("IP:127.0.0.1"));
  leaf("client", "mesh-provisioner-test-client", "extendedKeyUsage=clientAuth\nkeyUsage=digitalSignature,keyEncipherment\n");
  const m = {
    ca: f("ca.pem"),
    otherCa: f("other-ca.pem"),
    serverCert: f("server.pem"),
    serverKey: f("server.key"),
    clientCert: f("client.pem"),
    clientKey: f("client.key"),
  };
  const block = (cert: string, key: string): string =>
    `tls { cert_file: ${JSON.stringify(cert)}, key_file: ${JSON.stringify(key)}, ` + `ca_file: ${JSON.stringify(m.ca)}, verify: true, timeout: 2 }`;
  return {
    ...m,
    serverConfig: block(m.serverCert, m.serverKey),
    ipOnlyServerConfig: block(f("server-ip.pem"), f("server-ip.key")),
  };
}

// ---- operator mode (JWT) ----------------------------------------------------------------

const b64url = (b: Uint8Array | string): string => Buffer.from(b).toString("base64url");
const NO_LIMIT = -1;

/** Encode and sign claims the way the jwt library does (jti: a hash of the claims). */
function signJwt(issuer: KeyPair, subject: string, name: string, nats: Record<string, unknown>): string {
  const claims: Record<string, unknown> = {
    jti: "",
    iat: Math.floor(Date.now() / 1000),
    iss: issuer.getPublicKey(),
    name,
    sub: subject,
    nats: { ...nats, version: 2 },
  };
  claims["jti"] = createHash("sha256").update(JSON.stringify(claims)).update(randomBytes(8)).digest("base64url").toUpperCase();
  const head = b64url(JSON.stringify({ typ: "JWT", alg: "ed25519-nkey" }));
  const body = b64url(JSON.stringify(claims));
  const sig = issuer.sign(new TextEncoder().encode(`${head}.${body}`));
  return `${head}.${body}.${b64url(sig)}`;
}

export interface OperatorSetup {
  /** The server configuration: operator, memory resolver with both accounts preloaded, system account. */
  readonly serverConfig: string;
  /** Path of the user's creds file (JWT and seed), as `nsc generate creds` writes it. */
  readonly credsFile: string;
  /** A creds file of a user signed by an account the server does not know (must be refused). */
  readonly strangerCredsFile: string;
}

export function credsText(jwt: string, seed: Uint8Array): string {
  return `-----BEGIN NATS USER JWT-----
${jwt}
------END NATS USER JWT------

************************* IMPORTANT *************************
NKEY Seed printed below can be used to sign and prove identity.
NKEYs are sensitive and should be treated as secrets.

-----BEGIN USER NKEY SEED-----
${new TextDecoder().decode(seed)}
------END USER NKEY SEED------

*************************************************************
`;
}

const ACCOUNT_LIMITS = {
  limits: { subs: NO_LIMIT, data: NO_LIMIT, payload: NO_LIMIT, imports: NO_LIMIT, exports: NO_LIMIT, wildcards: true, conn: NO_LIMIT, leaf: NO_LIMIT },
  default_permissions: { pub: {}, sub: {} },
  type: "account",
};
const USER_LIMITS = { pub: {}, sub: {}, subs: NO_LIMIT, data: NO_LIMIT, payload: NO_LIMIT, type: "user" };

export function operatorSetup(dir: string): OperatorSetup {
  const operator = createOperator();
  const system = createAccount();
  const account = createAccount();
  const user = createUser();
  const operatorJwt = signJwt(operator, operator.getPublicKey(), "test-operator", { type: "operator", system_account: system.getPublicKey() });
  const systemJwt = signJwt(operator, system.getPublicKey(), "SYS", ACCOUNT_LIMITS);
  const accountJwt = signJwt(operator, account.getPublicKey(), "mesh", ACCOUNT_LIMITS);
  const userJwt = signJwt(account, user.getPublicKey(), "mesh-user", USER_LIMITS);
  const credsFile = join(dir, "user.creds");
  writeFileSync(credsFile, credsText(userJwt, user.getSeed()), { mode: 0o600 });

  const strangerAccount = createAccount();
  const stranger = createUser();
  const strangerCredsFile = join(dir, "stranger.creds");
  writeFileSync(strangerCredsFile, credsText(signJwt(strangerAccount, stranger.getPublicKey(), "stranger", USER_LIMITS), stranger.getSeed()), {
    mode: 0o600,
  });

  const serverConfig = [
    `operator: ${JSON.stringify(operatorJwt)}`,
    `system_account: ${JSON.stringify(system.getPublicKey())}`,
    "resolver: MEMORY",
    "resolver_preload: {",
    `  ${system.getPublicKey()}: ${JSON.stringify(systemJwt)}`,
    `  ${account.getPublicKey()}: ${JSON.stringify(accountJwt)}`,
    "}",
  ].join("\n");
  return { serverConfig, credsFile, strangerCredsFile };
}

// ---- operator mode with JetStream, roles as scoped signing keys, revocations -------------

/** A user's permissions in a JWT from a grant as `permissions` prints it (what `nsc … --allow-pub … --allow-pub-response` signs). */
export function jwtPermissions(grant: Grant): Record<string, unknown> {
  return {
    pub: { allow: grant.publish.allow, deny: grant.publish.deny },
    sub: { allow: grant.subscribe.allow, deny: grant.subscribe.deny },
    ...(grant.allow_responses === false ? {} : { resp: { max: 1, ttl: 0 } }),
  };
}

export interface MintedUser {
  readonly name: string;
  readonly publicKey: string;
  /** The creds file's text (JWT and seed), as `nsc generate creds` writes it. */
  readonly creds: string;
}

/** JetStream without limits for the account (`nsc edit account --js-mem-storage -1 --js-disk-storage -1 …`). */
const JETSTREAM_LIMITS = { mem_storage: NO_LIMIT, disk_storage: NO_LIMIT, streams: NO_LIMIT, consumer: NO_LIMIT };

export interface JetStreamOperator {
  /** The account's public key. */
  readonly account: string;
  /** A user of the system account (to push account JWTs, and ask `$SYS` for connections). */
  readonly system: MintedUser;
  /** The server configuration: operator, a full resolver in `dir` preloaded with both accounts, system account. */
  serverConfig(dir: string): string;
  /**
   * A new user of the account (a new nkey) signed by `role`'s scoped signing
   * key, so it holds that role's grant (`nsc add user -K <role>`); without a
   * role, signed by the account's own key, with no permissions.
   */
  user(name: string, role?: string): MintedUser;
  /** A new user of the account holding `grant` in its own JWT (`nsc add user --allow-pub … --allow-sub …`). */
  inlineUser(name: string, grant: Grant): MintedUser;
  /** The account's JWT signed again, revoking the users whose public keys are given (every JWT they hold until now). */
  accountJwt(revoked?: readonly string[]): string;
}

/**
 * An operator, a system account, and one account with JetStream whose roles
 * are scoped signing keys, each holding a grant as its template (`nsc edit
 * signing-key --role <role> --allow-pub …`): a user JWT then carries no
 * permissions of its own. The provisioner's grant inside a user JWT would
 * make a CONNECT line over nats-server's default max_control_line (4 KB),
 * and the server drops such a connection.
 */
export function jetstreamOperator(roles: Readonly<Record<string, Grant>> = {}): JetStreamOperator {
  const operator = createOperator();
  const system = createAccount();
  const account = createAccount();
  const roleKeys = new Map(Object.keys(roles).map((r) => [r, createAccount()] as const));
  const operatorJwt = signJwt(operator, operator.getPublicKey(), "test-operator", { type: "operator", system_account: system.getPublicKey() });
  const systemJwt = signJwt(operator, system.getPublicKey(), "SYS", ACCOUNT_LIMITS);
  const signingKeys = [...roleKeys].map(([role, kp]) => ({
    kind: "user_scope",
    key: kp.getPublicKey(),
    role,
    template: { ...jwtPermissions(roles[role]!), subs: NO_LIMIT, data: NO_LIMIT, payload: NO_LIMIT },
  }));
  const revocations: Record<string, number> = {};
  const accountJwt = (revoked: readonly string[] = []): string => {
    const now = Math.floor(Date.now() / 1000);
    for (const k of revoked) revocations[k] = now;
    return signJwt(operator, account.getPublicKey(), "mesh", {
      ...ACCOUNT_LIMITS,
      limits: { ...ACCOUNT_LIMITS.limits, ...JETSTREAM_LIMITS },
      ...(signingKeys.length > 0 ? { signing_keys: signingKeys } : {}),
      ...(Object.keys(revocations).length > 0 ? { revocations: { ...revocations } } : {}),
    });
  };
  const mint = (issuer: KeyPair, name: string, claims: Record<string, unknown>): MintedUser => {
    const kp = createUser();
    const jwt = signJwt(issuer, kp.getPublicKey(), name, claims);
    return { name, publicKey: kp.getPublicKey(), creds: credsText(jwt, kp.getSeed()) };
  };
  const first = accountJwt();
  return {
    account: account.getPublicKey(),
    system: mint(system, "sys", USER_LIMITS),
    serverConfig: (dir) =>
      [
        `operator: ${JSON.stringify(operatorJwt)}`,
        `system_account: ${JSON.stringify(system.getPublicKey())}`,
        `resolver: { type: full, dir: ${JSON.stringify(dir)}, allow_delete: false }`,
        "resolver_preload: {",
        `  ${system.getPublicKey()}: ${JSON.stringify(systemJwt)}`,
        `  ${account.getPublicKey()}: ${JSON.stringify(first)}`,
        "}",
      ].join("\n"),
    user: (name, role) => {
      if (role === undefined) return mint(account, name, USER_LIMITS);
      const key = roleKeys.get(role);
      if (key === undefined) throw new Error(`no role ${role}`);
      // Signed by the role's key on behalf of the account. The permissions and limits come from the key's
      // template: the server refuses such a user whose JWT sets any of its own.
      return mint(key, name, { type: "user", issuer_account: account.getPublicKey() });
    },
    inlineUser: (name, grant) => mint(account, name, { ...USER_LIMITS, ...jwtPermissions(grant) }),
    accountJwt,
  };
}

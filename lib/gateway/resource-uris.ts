/**
 * How a mounted upstream's resource URIs and templates are published, and read back.
 *
 * Without a namespace a URI (or template) is published verbatim. With one, the namespace becomes
 * a prefix of the URI's scheme, joined by `+` (RFC 3986 lets a scheme hold letters, digits, `+`,
 * `-` and `.`): `file:///notes.txt` under namespace `docs` is `docs+file:///notes.txt`, and
 * `test://template/{id}` is `docs+test://template/{id}`. The result is still an absolute URI, any
 * scheme works (`urn:`, `ui://`), and the upstream's URI is the published one with the prefix
 * removed. Schemes are case-insensitive and clients may lower-case them, so the prefix is the
 * namespace lower-cased and is recognized in any case. A namespace that cannot start a scheme
 * (it must begin with a letter and hold no `_`) publishes no resources; a URI or template without
 * a scheme of its own is not published under a namespace (both logged).
 */

const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;
const SCHEME_PREFIX = /^[A-Za-z][A-Za-z0-9.-]*$/;

export class ResourceUris {
  /** `namespace+` lower-cased; '' without a namespace; undefined when the namespace cannot be one. */
  readonly prefix: string | undefined;

  constructor(readonly namespace: string | undefined) {
    if (namespace === undefined) this.prefix = '';
    else this.prefix = SCHEME_PREFIX.test(namespace) ? `${namespace.toLowerCase()}+` : undefined;
  }

  /** Why nothing can be published under this namespace, or undefined when something can. */
  get problem(): string | undefined {
    return this.prefix === undefined
      ? `namespace "${this.namespace}" cannot prefix a URI scheme (it must start with a letter and hold only letters, digits, "-" and "."), so its resources are not mounted`
      : undefined;
  }

  /** The published form of an upstream URI or template; undefined when it has none. */
  publish(uri: string): string | undefined {
    if (this.prefix === undefined) return undefined;
    if (this.prefix === '') return uri;
    return SCHEME.test(uri) ? `${this.prefix}${uri}` : undefined;
  }

  /** The upstream's URI for a published one. */
  upstream(published: string): string {
    const prefix = this.prefix;
    if (!prefix) return published;
    return published.slice(0, prefix.length).toLowerCase() === prefix
      ? published.slice(prefix.length)
      : published;
  }
}

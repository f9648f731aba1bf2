/**
 * How a mount is named, and to whom.
 *
 * A gateway's clients are not its operators: an upstream's URL may carry an API key in its query
 * or credentials in its userinfo, and a command line may carry a token. So errors a client reads
 * name the mount by its `label` or `namespace` only (`publicName`), and what goes to the log names
 * its target with those parts masked (`target`, `redact`): the operator can still tell which
 * upstream failed and why, without the log becoming a place secrets are copied to.
 */
import type { Upstream } from './upstream-target.js';

/** A URL anywhere in a text: scheme, optional userinfo, host and path, optional query. */
const URL_IN_TEXT = /\b([a-z][a-z0-9+.-]*:\/\/)([^\s/?#@]*@)?([^\s?#'"]*)(\?[^\s#'"]*)?(#[^\s'"]*)?/gi;
/** Command-line words that name a secret: `--token=x`, `API_KEY=x`, or the word after `--token`. */
const SECRET_WORD = /(token|key|secret|pass(word)?|auth|credential|bearer)/i;

/** A URL with its userinfo, query and fragment masked. */
function maskUrls(text: string): string {
  return text.replace(
    URL_IN_TEXT,
    (_whole, scheme: string, userinfo: string | undefined, rest: string, query: string | undefined) =>
      `${scheme}${userinfo ? '***@' : ''}${rest}${query ? '?***' : ''}`,
  );
}

/** A command line with secret-looking values masked. */
function maskCommand(command: string, args: readonly string[]): string {
  const words: string[] = [command];
  let maskNext = false;
  for (const arg of args) {
    if (maskNext) {
      words.push('***');
      maskNext = false;
      continue;
    }
    const equals = arg.indexOf('=');
    if (equals > 0 && SECRET_WORD.test(arg.slice(0, equals))) words.push(`${arg.slice(0, equals + 1)}***`);
    else {
      words.push(maskUrls(arg));
      maskNext = arg.startsWith('-') && equals < 0 && SECRET_WORD.test(arg);
    }
  }
  return words.join(' ');
}

export class MountNaming {
  /** What a gateway's client reads: `the mount "search"`. */
  readonly publicName: string;
  /** What the log reads: the target with its secrets masked. */
  readonly target: string;
  /** The unmasked target, as it may appear inside a transport's error text. */
  readonly #raw: string | undefined;

  constructor(upstream: Upstream, name: string | undefined) {
    this.publicName = name === undefined ? 'the mounted upstream' : `the mount "${name}"`;
    if (typeof upstream === 'string' || upstream instanceof URL) {
      this.#raw = String(upstream);
      this.target = maskUrls(this.#raw);
    } else if ('command' in upstream) {
      this.#raw = [upstream.command, ...(upstream.args ?? [])].join(' ');
      this.target = maskCommand(upstream.command, upstream.args ?? []);
    } else if ('url' in upstream) {
      this.#raw = String(upstream.url);
      this.target = maskUrls(this.#raw);
    } else {
      this.#raw = undefined;
      this.target = 'an in-process server';
    }
  }

  /** A text for the log (an error's message) with the target's secrets masked. */
  redact(text: string): string {
    const named = this.#raw === undefined ? text : text.split(this.#raw).join(this.target);
    return maskUrls(named);
  }
}

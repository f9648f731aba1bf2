/**
 * Which tagged tools, prompts and resources a server exposes, from its `enabledTags` and
 * `disabledTags` options and the `enableTag` / `disableTag` calls made since.
 *
 * An entry hidden by its tags is neither listed nor callable (or readable, or gettable): the
 * registries ask `visible` wherever they look an entry up, so no method can reach it by name. The
 * rules: an entry carrying a disabled tag is hidden; with `enabledTags` given, an entry must carry
 * one of them to be shown (untagged entries included in that rule). Tags themselves stay local.
 */
export class TagFilter {
  readonly #enabled: Set<string> | undefined;
  readonly #disabled: Set<string>;

  constructor(enabledTags?: readonly string[], disabledTags?: readonly string[]) {
    this.#enabled = enabledTags === undefined ? undefined : new Set(enabledTags);
    this.#disabled = new Set(disabledTags ?? []);
  }

  /** True when nothing is filtered, so lookups need not look at tags at all. */
  get open(): boolean {
    return this.#enabled === undefined && this.#disabled.size === 0;
  }

  visible(tags: readonly string[] | undefined): boolean {
    if (this.open) return true;
    if (tags?.some((tag) => this.#disabled.has(tag))) return false;
    return this.#enabled === undefined || (tags?.some((tag) => this.#enabled!.has(tag)) ?? false);
  }

  /** Shows again what `tag` hid (and, under `enabledTags`, what it now lets through). */
  enable(tag: string): boolean {
    const hidden = this.#disabled.delete(tag);
    const allowed = this.#enabled !== undefined && !this.#enabled.has(tag);
    if (allowed) this.#enabled!.add(tag);
    return hidden || allowed;
  }

  /** Hides every entry carrying `tag`; returns false when it was hidden already. */
  disable(tag: string): boolean {
    if (this.#disabled.has(tag)) return false;
    this.#disabled.add(tag);
    return true;
  }
}

/** Checks a `tags` option: an array of non-empty strings. */
export function checkTags(tags: unknown, where: string): void {
  if (tags === undefined) return;
  if (!Array.isArray(tags) || !tags.every((tag) => typeof tag === 'string' && tag !== '')) {
    throw new TypeError(`${where}: tags must be an array of non-empty strings, got ${JSON.stringify(tags)}`);
  }
}

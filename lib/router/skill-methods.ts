/**
 * The Skills extension's methods (SEP-2640) over a SkillCatalog: `skills/list` (every skill's
 * entry, paged by URI), `skills/get` (one entry by its SKILL.md URI) and
 * `resources/directory/read` (a skill directory's children, paged by URI). The same in both eras;
 * the modern one adds `ttlMs` / `cacheScope` as it does to every cacheable result.
 */

import { ProtocolError } from '../protocol/protocol-error.js';
import {
  DIRECTORY_READ_METHOD,
  SKILLS_GET_METHOD,
  SKILLS_LIST_METHOD,
} from '../protocol/skills-extension.js';
import type { SkillCatalog } from '../skills/skill-catalog.js';
import { listingPage } from './resource-methods.js';
import type { Router } from './router.js';

export function addSkillMethods(router: Router, catalog: SkillCatalog, pageSize: number): void {
  // listingPage pages over a sorted list by `name`: here the URI, unique and in code-unit order.
  const skills = catalog.skills.map((skill) => ({ name: skill.uri, descriptor: skill }));
  const byUri = new Map(catalog.skills.map((skill) => [skill.uri, skill]));
  const directories = new Map(
    [...catalog.directories].map(([uri, children]) => [
      uri,
      children.map((child) => ({ name: child.uri, descriptor: child })),
    ]),
  );
  const uriOf = (params: Record<string, unknown>, method: string, what: string): string => {
    if (typeof params.uri !== 'string')
      throw ProtocolError.invalidParams(`${method} needs params.uri, ${what}`);
    return params.uri;
  };
  router
    .method(SKILLS_LIST_METHOD, ({ params }) => {
      const { items, nextCursor } = listingPage(skills, params.cursor, pageSize);
      return nextCursor === undefined ? { skills: items } : { skills: items, nextCursor };
    })
    .method(SKILLS_GET_METHOD, ({ params }) => {
      const uri = uriOf(params, SKILLS_GET_METHOD, "a skill's SKILL.md URI from skills/list");
      const skill = byUri.get(uri);
      if (skill === undefined) throw ProtocolError.invalidParams(`No skill is served at ${uri}`, { uri });
      return { skill };
    })
    .method(DIRECTORY_READ_METHOD, ({ params }) => {
      const uri = uriOf(params, DIRECTORY_READ_METHOD, 'a skill directory such as skill://my-skill');
      const children = directories.get(uri);
      if (children === undefined)
        throw ProtocolError.invalidParams(`${uri} is not a directory resource`, { uri });
      const { items, nextCursor } = listingPage(children, params.cursor, pageSize);
      return nextCursor === undefined ? { resources: items } : { resources: items, nextCursor };
    });
}

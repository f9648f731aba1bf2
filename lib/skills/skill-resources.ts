/**
 * A skills folder's files as resources: every file of every skill at its `skill://` URI, the
 * SKILL.md named and described by its frontmatter, the others by their path in the skill. A read
 * returns text for a text file that is valid UTF-8 and bytes (a base64 `blob`) otherwise, after
 * checking the file still has the digest the manifest published.
 */
import type { ResourceDefinition } from '../resources/resource-definition.js';
import { SKILL_FILE, type SkillCatalog } from './skill-catalog.js';

const TEXTUAL = /^text\/|^application\/(?:json|yaml|xml|x-sh)$|^image\/svg\+xml$/;

export function skillResources(catalog: SkillCatalog): ResourceDefinition[] {
  return [...catalog.files.values()].map((file) => {
    const manifest = file.relativePath === SKILL_FILE;
    const { name, description } = file.skill.frontmatter as { name: string; description: string };
    return {
      uri: file.uri,
      name: manifest ? name : `${name}/${file.relativePath}`,
      ...(manifest ? { description } : {}),
      mimeType: file.mimeType,
      size: file.size,
      read: async (uri) => {
        const { bytes } = await catalog.read(uri);
        if (TEXTUAL.test(file.mimeType)) {
          try {
            return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
          } catch {
            // Not UTF-8 after all: sent as bytes.
          }
        }
        return new Uint8Array(bytes);
      },
    };
  });
}

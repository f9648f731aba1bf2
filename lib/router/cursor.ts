/**
 * Opaque pagination cursors.
 *
 * A cursor names the last item of the page it follows ("after this name"), not an offset: over a
 * list kept in a stable total order (by name), that stays correct when items are added or removed
 * between two pages. It is base64url so clients treat it as the opaque token the spec says it is.
 */
import { ProtocolError } from '../protocol/protocol-error.js';

export function encodeCursor(lastName: string): string {
  return Buffer.from(JSON.stringify({ after: lastName })).toString('base64url');
}

export function decodeCursor(cursor: unknown): string {
  if (typeof cursor !== 'string' || cursor.length === 0 || cursor.length > 1024) throw badCursor();
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw badCursor();
  }
  const after = (decoded as { after?: unknown } | null)?.after;
  if (typeof after !== 'string') throw badCursor();
  return after;
}

/** Index of the first item whose name sorts after `name` (binary search over a sorted list). */
export function firstAfter(sorted: readonly { name: string }[], name: string): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (sorted[mid]!.name <= name) low = mid + 1;
    else high = mid;
  }
  return low;
}

function badCursor(): ProtocolError {
  return ProtocolError.invalidParams(
    'Invalid cursor: pass back the nextCursor of a previous list result, unchanged',
  );
}

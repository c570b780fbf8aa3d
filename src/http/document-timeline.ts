import { Type, type Static } from '@sinclair/typebox';
import { Nullable } from './schemas.js';
import { formatWithOffset } from './time.js';

/**
 * What happened to a receipt or an order, oldest first, as its 3PL get shows it (docs/console.md: the
 * console's timeline): its import, then every move recorded with its note and the key that made it.
 */

export const TimelineEntrySchema = Type.Object({
  When: Type.String({ description: 'ISO date-time with the facility’s UTC offset.' }),
  Action: Type.String({ description: 'import, open, cancel, force-close, confirm (a receipt), ship (an order).' }),
  FromStatus: Nullable(Type.String({ description: 'null for the import.' })),
  ToStatus: Type.String(),
  Note: Nullable(Type.String()),
  KeyID: Nullable(Type.Integer({ description: 'The key that made the move; null for the import.' })),
});
export type TimelineEntry = Static<typeof TimelineEntrySchema>;

/** The moves of a document as its history table keeps them. */
export interface MoveRow {
  action: string;
  from_status: string;
  to_status: string;
  note: string | null;
  key_id: number;
  created_at: number;
}

export function timelineOf(importedAt: number, moves: MoveRow[], timeZone: string): TimelineEntry[] {
  return [
    { When: formatWithOffset(importedAt, timeZone), Action: 'import', FromStatus: null, ToStatus: 'Imported', Note: null, KeyID: null },
    ...moves.map((move) => ({
      When: formatWithOffset(move.created_at, timeZone),
      Action: move.action,
      FromStatus: move.from_status,
      ToStatus: move.to_status,
      Note: move.note,
      KeyID: Number(move.key_id),
    })),
  ];
}

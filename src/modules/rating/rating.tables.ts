import type { Generated } from 'kysely';

/** Every version of every rate card a company loaded; a load adds a row and changes none. */
export interface RateCardTable {
  company_id: string;
  id: Generated<number>;
  /** The UserID the card is bound to; 0 for the company's default card. */
  user_id: number;
  /** 1, 2, 3, … per (company, user_id). */
  version: number;
  name: string;
  /** yyyy-MM-dd in time_zone. */
  effective_from: string;
  effective_to: string | null;
  time_zone: string;
  /** The card as loaded (canonical JSON), compiled again when a process first needs it. */
  card: string;
  card_hash: string;
  loaded_by_key_id: number | null;
  loaded_at: number;
}

export interface RatingTables {
  rate_cards: RateCardTable;
}

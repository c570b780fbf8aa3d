import { Type, type Static } from '@sinclair/typebox';
import { Nullable, StringEnum } from '../../http/schemas.js';
import { ROLES } from './tenants.schemas.js';

/** What a key may do, as the key itself may read it: how a console or a client learns where it can act. */
export const ApiKeyDescriptionSchema = Type.Object(
  {
    KeyID: Type.Integer({ description: 'The id that names the key in the admin API and the CLI.' }),
    Role: StringEnum(ROLES),
    CompanyID: Type.String(),
    Customers: Type.Array(Type.String(), {
      description: "The customers it may act for: a customer key's own, or every customer of the company for the other roles.",
    }),
    Facilities: Type.Array(Type.String(), {
      description: 'The facilities it may act in: those it is limited to, or every facility of the company.',
    }),
    UserIDs: Type.Array(Type.Integer(), { description: 'The rate-engine UserIDs a rater key quotes for.' }),
    Label: Type.String(),
    ExpiresAt: Nullable(Type.String({ description: 'When it stops working (UTC ISO 8601); null: never.' })),
  },
  {
    examples: [
      {
        KeyID: 1,
        Role: 'customer',
        CompanyID: 'DEMO',
        Customers: ['ACME'],
        Facilities: ['LAX1'],
        UserIDs: [],
        Label: 'demo customer',
        ExpiresAt: null,
      },
    ],
  },
);
export type ApiKeyDescription = Static<typeof ApiKeyDescriptionSchema>;

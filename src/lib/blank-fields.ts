/**
 * docs/operations.md: on an import, `""` and a text of only white space are absent, on every optional
 * field. One rule, driven by the body's JSON schema and applied before the schema checks the body:
 * a property the schema declares but does not require, whose value is such a text, is removed.
 * Required fields keep their blank text (and are refused for it); keys the schema does not declare
 * are kept as sent, since they are stored and echoed as they came.
 */

interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
}

/** Where in a body blank texts are absent: an object's optional keys, its members, an array's elements. */
interface Plan {
  optional: Set<string>;
  members: Map<string, Plan>;
  items?: Plan;
}

const isBlank = (value: unknown) => typeof value === 'string' && value.trim() === '';

function merge(plans: Plan[]): Plan | undefined {
  if (plans.length <= 1) return plans[0];
  const merged: Plan = { optional: new Set(), members: new Map() };
  for (const plan of plans) {
    for (const key of plan.optional) merged.optional.add(key);
    for (const [key, member] of plan.members) {
      const earlier = merged.members.get(key);
      merged.members.set(key, earlier ? merge([earlier, member])! : member);
    }
    if (plan.items) merged.items = merged.items ? merge([merged.items, plan.items]) : plan.items;
  }
  return merged;
}

/** The plan of a schema, undefined where it declares no object (a text, a number, …). */
function planOf(schema: JsonSchema): Plan | undefined {
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants) return merge(variants.map(planOf).filter((plan): plan is Plan => plan !== undefined));
  if (schema.items) {
    const items = planOf(schema.items);
    return items && { optional: new Set(), members: new Map(), items };
  }
  if (!schema.properties) return undefined;
  const required = new Set(schema.required ?? []);
  const plan: Plan = { optional: new Set(), members: new Map() };
  for (const [key, property] of Object.entries(schema.properties)) {
    if (!required.has(key)) plan.optional.add(key);
    const member = planOf(property);
    if (member) plan.members.set(key, member);
  }
  return plan;
}

function apply(plan: Plan, value: unknown): void {
  if (Array.isArray(value)) {
    if (plan.items) for (const element of value) apply(plan.items, element);
    return;
  }
  if (value === null || typeof value !== 'object') return;
  const object = value as Record<string, unknown>;
  for (const key of plan.optional) if (isBlank(object[key])) delete object[key];
  for (const [key, member] of plan.members) apply(member, object[key]);
}

const plans = new WeakMap<object, Plan | null>();

/**
 * Removes, in place, every optional field of `body` that `schema` declares and whose value is
 * blank. The walk follows the schema, so it goes no deeper than the schema does.
 */
export function dropBlankOptionalFields(schema: object, body: unknown): void {
  let plan = plans.get(schema);
  if (plan === undefined) plans.set(schema, (plan = planOf(schema as JsonSchema) ?? null));
  if (plan) apply(plan, body);
}

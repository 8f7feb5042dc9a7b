import type { FC } from 'hono/jsx';
import { AppError } from '../errors.js';
import type { FilterNode } from '../filters/parse.js';
import { parseFilter } from '../filters/parse.js';
import type { FormErrors } from './forms.js';

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * The search page's "added from / to" dates (inclusive days, UTC) as a `created_at` filter, or the
 * field errors. Empty fields add nothing.
 */
export function dateFilter(from: string, to: string): { filter?: FilterNode; errors: FormErrors } {
  const errors: FormErrors = {};
  const bad = (v: string) => !DAY.test(v) || Number.isNaN(Date.parse(`${v}T00:00:00Z`));
  if (from && bad(from)) errors['search-from'] = 'Use a date such as 2024-01-31.';
  if (to && bad(to)) errors['search-to'] = 'Use a date such as 2024-12-31.';
  if (Object.keys(errors).length || (!from && !to)) return { errors };
  const range: Record<string, string> = {};
  if (from) range.gte = `${from}T00:00:00Z`;
  if (to) range.lt = new Date(Date.parse(`${to}T00:00:00Z`) + 86_400_000).toISOString();
  try {
    return { filter: parseFilter({ created_at: range }), errors };
  } catch (err) {
    if (err instanceof AppError) return { errors: { 'search-from': err.message } };
    throw err;
  }
}

export const DateFields: FC<{ from: string; to: string; errors: FormErrors }> = ({ from, to, errors }) => (
  <>
    {(
      [
        ['search-from', 'from', 'Added from', from],
        ['search-to', 'to', 'Added until', to],
      ] as const
    ).map(([id, name, label, value]) => (
      <div class="field">
        <label for={id}>{label}</label>
        <input
          id={id}
          name={name}
          type="date"
          value={value}
          aria-invalid={errors[id] ? 'true' : undefined}
          aria-describedby={errors[id] ? `${id}-error` : undefined}
        />
        {errors[id] ? (
          <span class="field-error" id={`${id}-error`}>
            {errors[id]}
          </span>
        ) : null}
      </div>
    ))}
  </>
);

/**
 * The event `cost` display string and `cost_details`, as Tribe__Cost_Utils formats them: the
 * free-text cost is kept, its numbers are pulled out, `0` reads "Free", a range is "min – max",
 * and a bare number gets the site's default currency symbol ("$", prefix).
 */

export interface CostDetails {
  currency_symbol: string;
  currency_code: string;
  currency_position: string;
  values: string[];
}

const SITE_SYMBOL = '$';

export function renderCost(raw: string): { cost: string; cost_details: CostDetails } {
  const text = raw.trim();
  if (text === '') {
    return { cost: '', cost_details: { currency_symbol: '', currency_code: '', currency_position: '', values: [] } };
  }
  const numbers = [...text.matchAll(/\d+(?:[.,]\d+)?/g)].map((m) => m[0].replace(',', '.'));
  // A symbol written into the cost itself (e.g. "€25" or "25 kr") is what the site remembers.
  const prefix = /^([^\d\s.,]+)\s*\d/.exec(text)?.[1];
  const postfix = prefix ? undefined : /\d\s*([^\d\s.,–-]+)$/.exec(text)?.[1];
  const written = prefix ?? postfix ?? '';
  const details: CostDetails = {
    currency_symbol: written,
    currency_code: '',
    currency_position: prefix ? 'prefix' : postfix ? 'postfix' : '',
    values: [],
  };
  if (numbers.length === 0) {
    details.values = [text];
    return { cost: text, cost_details: details };
  }
  const sorted = [...new Set(numbers)].sort((a, b) => Number(a) - Number(b));
  details.values = sorted;
  const symbol = written || SITE_SYMBOL;
  const fmt = (n: string): string => {
    if (Number(n) === 0) return 'Free';
    return postfix ? `${n}${symbol}` : `${symbol}${n}`;
  };
  const min = sorted[0];
  const max = sorted[sorted.length - 1];
  return { cost: min === max ? fmt(min) : `${fmt(min)} – ${fmt(max)}`, cost_details: details };
}

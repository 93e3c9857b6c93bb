/**
 * Data the analytics benchmarks seed from, shared so that they load the
 * same countries and activity kinds.
 */

/** Twenty ISO country codes visits are spread over. */
export const COUNTRIES = [
  'US',
  'JP',
  'DE',
  'FR',
  'BR',
  'IN',
  'GB',
  'ES',
  'IT',
  'CA',
  'MX',
  'KR',
  'AU',
  'NL',
  'SE',
  'PL',
  'TR',
  'ID',
  'AR',
  'ZA',
] as const

/** Every activity kind the service counts. */
export const KINDS = ['click_to_call', 'click_to_map', 'click_to_email', 'form_submit'] as const

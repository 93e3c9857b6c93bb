/**
 * The curated supported-agents list served by `GET /agents`.
 *
 * It redirects phones and leaves tablets and desktops alone. It was built and
 * is checked against the weighted real UAs of the `user-agents` package
 * (test/redirect/agents-default.ts, docs/redirect.md): every name below was chosen so
 * that it matches no known desktop or tablet UA. Names that look useful but
 * are not safe were left out on purpose:
 * - `Mobile`: iPad Safari, Chrome and the Google app send `Mobile/15E148`.
 * - `PPC`: matches `PPC Mac OS X`, a desktop.
 * - `Tizen`, `webOS`: Samsung and LG smart TVs.
 * - `Touch`: Windows tablets and touch laptops (`Windows NT 6.2; ARM; Touch`).
 * - `Silk`, `Kindle`: Fire tablets and e-ink readers.
 * - `Nokia`, `S60`: also in Android and Windows tablet/phone model names.
 */

/**
 * The names of {@link DEFAULT_AGENTS}, most frequent first, each a regex
 * fragment matched case-insensitively inside one line of the User-Agent.
 */
export const DEFAULT_AGENT_NAMES: readonly string[] = Object.freeze([
  // iOS phones; iPod touch says "iPod touch; CPU iPhone OS" too.
  'iPhone',
  // Android phones. Android tablets leave "Mobile" out: that is the documented
  // Chrome/Android convention, and how this list keeps tablets out.
  'Android.*Mobile',
  'iPod',
  // Windows Phone 8/8.1/10 Mobile and Windows Phone 7 (IEMobile only).
  'Windows Phone',
  'IEMobile',
  // BlackBerry OS up to 7 ("BlackBerry9700/…", "BlackBerry 9900"), then BB10
  // ("(BB10; Touch)"). The PlayBook tablet says "RIM Tablet OS": not matched.
  'BlackBerry',
  'BB10;',
  // Opera's phone browsers. The tablet build of Opera Mobile says "Opera Tablet".
  'Opera Mini',
  'Opera Mobi',
  // Feature phones: Symbian, Java ME (MIDP), KaiOS.
  'Symbian',
  'MIDP',
  'KAIOS',
  // HarmonyOS NEXT: "(Phone; OpenHarmony 5.0)"; tablets say "(Tablet; …".
  'Phone; OpenHarmony',
])

/**
 * The default supported-agents regex source: the spec's form, every name of
 * {@link DEFAULT_AGENT_NAMES} wrapped in `.*` and alternated with `|`.
 * Use it with {@link createAgentMatcher} (never as a plain RegExp: see
 * docs/redirect.md for why).
 *
 * @example
 * ```ts
 * const isPhone = createAgentMatcher(DEFAULT_AGENTS)
 * isPhone('Mozilla/5.0 (iPhone; CPU iPhone OS 18_7 like Mac OS X) …') // true
 * ```
 */
export const DEFAULT_AGENTS: string = DEFAULT_AGENT_NAMES.map((name) => `.*${name}.*`).join('|')

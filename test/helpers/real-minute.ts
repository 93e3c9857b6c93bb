/**
 * Some limits count per minute of real time, not the engine clock (a frozen
 * test clock must not freeze them): failed logins, the collector's beacons.
 * A test that counts up to such a limit fails if a minute turns under it
 * (a fixed window starts again at zero; a sliding one weighs the previous
 * minute a little less). It starts with at least `seconds` of the minute left,
 * waiting for the next minute when fewer remain.
 */
export async function awayFromMinuteTurn(seconds = 10): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000)
  if (left < seconds * 1000) await new Promise((resolve) => setTimeout(resolve, left + 50))
}

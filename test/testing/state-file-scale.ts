/**
 * The state file under load, at a size where a write-back is written in
 * slices: the CLI with `--state` holding 5,000 sites (written in several 5 ms slices), creates acknowledged
 * one after another while write-backs run.
 *
 * The loss bound as an order, not a time (a shared machine makes any time
 * bound flaky; `npm run reliability` measures the 5 s bound and the event-loop
 * stalls at 50,000 sites, docs/RELIABILITY.md): an acknowledged create is in
 * every version of the file from the second one renamed into place after its
 * acknowledgement. The first may have taken its snapshot before the create;
 * the second starts after the first is in place, so it cannot miss it.
 */
import { closeSync, fstatSync, openSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { createSite, folder, serveCli, sleep, TESTER } from '../helpers/state-file.js'

const SITES = 5_000
const CREATES = 150
const INTERVAL_SECONDS = 0.3

/** The versions of the state file seen so far, counted, and the first version each probe site is in. */
class Versions {
  private inode = 0
  readonly firstSeen = new Map<string, number>()
  count = 0

  /** Reads the file if it is a new version (by inode). */
  poll(file: string): void {
    let fd: number
    try {
      fd = openSync(file, 'r')
    } catch {
      return
    }
    try {
      const info = fstatSync(fd)
      if (info.ino === this.inode) return
      this.inode = info.ino
      this.count++
      for (const [, name] of readFileSync(fd, 'utf8').matchAll(/"site_name":"(load-\d+)"/g))
        if (!this.firstSeen.has(name!)) this.firstSeen.set(name!, this.count)
    } finally {
      closeSync(fd)
    }
  }
}

t.test('5,000 sites: an acknowledged create is in the file from the second write-back after it on', async (t) => {
  const dir = folder(t)
  const file = join(dir, 'state.json')
  const sites = Array.from({ length: SITES }, (_, i) => ({
    owner: TESTER.user,
    site_name: `seeded-${i}`,
    original_site_url: `https://www.shop-${i}.example.com/home`,
    external_uid: `crm-${i}`,
    site_business_info: {
      business_name: `Shop number ${i}`,
      phone_number: '+1 555 0100',
      address: { street: `${i} Main Street`, city: 'Springfield', state: 'IL', country: 'US', zip_code: '62701' },
    },
  }))
  writeFileSync(file, JSON.stringify({ sites }))
  const cli = await serveCli(t, ['--state', file, '--state-interval', String(INTERVAL_SECONDS)])
  const versions = new Versions()
  versions.poll(file)
  const poller = setInterval(() => versions.poll(file), 5)
  // The version count right after each acknowledgement: a rename between the two only makes the check looser.
  const acknowledgedAt = new Map<string, number>()
  for (let n = 0; n < CREATES; n++) {
    t.equal(await createSite(cli.url, `load-${n}`), 200, `load-${n} acknowledged`)
    versions.poll(file)
    acknowledgedAt.set(`load-${n}`, versions.count)
    // Spread the creates over several write-backs.
    if (n % 10 === 9) await sleep(50)
  }
  const last = Math.max(...acknowledgedAt.values())
  // A write-back runs only after a change: other creates keep them coming until two follow the last probe.
  for (let tail = 0; versions.count < last + 2; tail++) {
    if (tail > 600) throw new Error('gave up waiting: two more versions after the last create')
    await createSite(cli.url, `tail-${tail}`)
    await sleep(100)
    versions.poll(file)
  }
  clearInterval(poller)

  const late: string[] = []
  for (const [name, at] of acknowledgedAt) {
    const first = versions.firstSeen.get(name)
    if (first === undefined || first > at + 2) late.push(`${name} (acknowledged at version ${at}, first in ${first})`)
  }
  t.ok(versions.count - 1 >= 3, `${versions.count - 1} write-backs during the creates`)
  t.same(late, [], 'every acknowledged create is in the second version after it')
  cli.child.kill('SIGTERM')
  t.equal(await cli.exited, 0)
  t.equal(
    [...readFileSync(file, 'utf8').matchAll(/"site_name":"load-\d+"/g)].length,
    CREATES,
    'the file written on the way out holds every create',
  )
})

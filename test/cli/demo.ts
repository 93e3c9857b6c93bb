/**
 * The CLI's way into the dashboard: `npm start` prints how to get a
 * sub-account's SSO link (and the printed commands work), and `--demo`
 * seeds a sub-account, a granted site and 30 days of visits and prints a
 * ready link that opens a filled dashboard.
 */
import { exec } from 'node:child_process'
import t from 'tap'
import { lines as linesOf, root, startCli } from '../helpers/cli.js'

const sh = (command: string): Promise<string> =>
  new Promise((resolve, reject) =>
    exec(command, { cwd: root }, (error, stdout) => (error ? reject(error) : resolve(stdout))),
  )

/** Opens a sign-in link like a browser would: the 303 and its cookie, then the page it points to. */
async function signIn(link: string): Promise<{ cookie: string; location: string }> {
  const res = await fetch(link, { redirect: 'manual' })
  return { cookie: (res.headers.get('set-cookie') ?? '').split(';')[0]!, location: res.headers.get('location') ?? '' }
}

t.test('npm start prints how to get an SSO link, and the printed commands give one with a granted site', async (t) => {
  const cli = await startCli(t, [], /^ {10}prints a link into a sub-account's dashboard/)
  const lines = linesOf(cli.stderr())
  const sso = lines.find((line) => line.startsWith('sso:'))
  t.ok(sso, 'an sso: line beside the try: line')
  t.match(lines.join('\n'), /--demo/, 'and a pointer to --demo')
  const out = await sh(sso!.slice('sso:'.length).trim())
  // Each curl prints its answer; the link is the last one.
  const { url } = JSON.parse(out.slice(out.lastIndexOf('{"url"'))) as { url: string }
  t.match(url, /^http:\/\/127\.0\.0\.1:\d+\/dashboard\/sso\?token=[A-Za-z0-9_-]{43}$/, 'running it prints a link')
  const { cookie, location } = await signIn(url)
  t.equal(location, '/dashboard/')
  const page = await fetch(new URL(location, url), { headers: { cookie } })
  t.equal(page.status, 200)
  t.match(await page.text(), /my-first-site/, 'the sub-account sees the site the commands granted it')
})

t.test('--demo: one command to a filled dashboard', async (t) => {
  const cli = await startCli(t, ['--demo'], /a fresh one: /)
  const text = linesOf(cli.stderr()).join('\n')
  t.match(text, /demo: +sub-account demo@example\.com with site demo-bistro \(granted\) and 30 days of visits/)
  const link = /^open: +(\S+)$/m.exec(text)?.[1] ?? ''
  t.match(link, /^http:\/\/127\.0\.0\.1:\d+\/dashboard\/sso\?token=[A-Za-z0-9_-]{43}$/, 'a ready link')
  const { cookie, location } = await signIn(link)
  const list = await (await fetch(new URL(location, link), { headers: { cookie } })).text()
  t.match(list, /Demo Bistro/, 'the dashboard lists the demo site')
  const page = await fetch(new URL('/dashboard/sites/demo-bistro', link), { headers: { cookie } })
  t.equal(page.status, 200)
  const html = await page.text()
  const visits = [...html.matchAll(/<tr data-day="[^"]+"><th scope="row">[^<]+<\/th><td>([\d,]+)<\/td>/g)].map((m) =>
    Number(m[1]!.replace(/,/g, '')),
  )
  t.equal(visits.length, 30, '30 days in the table')
  t.ok(
    visits.every((v) => v > 0),
    'every one of them with visits',
  )
  t.match(
    text,
    /a fresh one: curl -u '[^']+' http:\/\/\S+\/api\/accounts\/sso\/demo@example\.com\/link/,
    'and how to get a fresh link',
  )
  const again = await sh(/a fresh one: (.+)\)$/m.exec(text)![1]!)
  t.match(JSON.parse(again).url, /\/dashboard\/sso\?token=/, 'which works')
})

/**
 * Single sign-on across two mobisite processes on one Redis (RedisStore, one
 * random prefix): a link issued by one is redeemed by the other, a session
 * opened on one works on the other, and the same token redeemed on both at
 * once opens exactly one session.
 * Needs REDIS_URL; without it the file skips and says so.
 */
import t from 'tap'
import {
  REDIS_URL,
  deleteUnder,
  randomPrefix,
  redisOrSkip,
  request,
  spawnMobisite,
  type MobisiteProcess,
} from '../../helpers/redis.js'

const admin = await redisOrSkip(t, 'SSO across processes on Redis')

if (admin && REDIS_URL) {
  const prefix = randomPrefix('sso')
  const auth: [string, string] = ['partner', 'partner-secret']
  const env = { REDIS_URL, MOBISITE_REDIS_PREFIX: prefix, MOBISITE_USER: auth[0], MOBISITE_PASSWORD: auth[1] }
  const servers: MobisiteProcess[] = []
  t.teardown(async () => {
    await Promise.all(servers.map((s) => s.stop()))
    await deleteUnder(admin, prefix)
  })
  const started = await Promise.allSettled([spawnMobisite(env), spawnMobisite(env)])
  for (const s of started) if (s.status === 'fulfilled') servers.push(s.value)
  const failed = started.find((s): s is PromiseRejectedResult => s.status === 'rejected')
  if (failed) throw failed.reason
  const [A, B] = servers as [MobisiteProcess, MobisiteProcess]
  const dashboard = (server: MobisiteProcess) => server.api.replace(/\/api$/, '/dashboard')
  const tokenFrom = async (server: MobisiteProcess): Promise<string> => {
    const res = await request(server.api, auth, 'GET', '/accounts/sso/acc/link')
    if (res.status !== 200) throw new Error(`SSO link: ${res.status} ${JSON.stringify(res.body)}`)
    return new URL(res.body.url).searchParams.get('token')!
  }
  const redeem = (server: MobisiteProcess, token: string) =>
    fetch(`${dashboard(server)}/sso?token=${token}`, { redirect: 'manual', signal: AbortSignal.timeout(15_000) })

  t.test('a link from A signs in on B; the session works on A', async (t) => {
    t.equal((await request(A.api, auth, 'POST', '/accounts/create', { account_name: 'acc' })).status, 204)
    t.equal(
      (
        await request(B.api, auth, 'POST', '/sites/create', {
          site_data: { site_name: 'shared', original_site_url: 'https://www.example.com/' },
        })
      ).status,
      200,
    )
    t.equal((await request(A.api, auth, 'POST', '/accounts/grant-access/acc/sites/shared')).status, 204)
    t.not(A.child.pid, B.child.pid, 'two processes')
    const res = await redeem(B, await tokenFrom(A))
    t.equal(res.status, 303)
    const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0]!
    const page = await fetch(`${dashboard(A)}/`, { headers: { cookie } })
    t.equal(page.status, 200)
    t.match(await page.text(), /data-site="shared"/)
    const out = await fetch(`${dashboard(B)}/logout`, { method: 'POST', headers: { cookie }, redirect: 'manual' })
    t.equal(out.status, 303, 'signed out on B')
    t.equal((await fetch(`${dashboard(A)}/`, { headers: { cookie } })).status, 401, 'and the session is gone on A too')
  })

  t.test('each of 20 tokens redeemed 4 times at once across both processes: one session each', async (t) => {
    const tokens = await Promise.all(Array.from({ length: 20 }, (_, i) => tokenFrom(i % 2 === 0 ? A : B)))
    const rounds = await Promise.all(
      tokens.map(async (token) => {
        const answers = await Promise.all([redeem(A, token), redeem(B, token), redeem(A, token), redeem(B, token)])
        return {
          wins: answers.filter((r) => r.status === 303).length,
          refused: answers.filter((r) => r.status === 401).length,
          cookies: answers.filter((r) => r.headers.get('set-cookie')).length,
        }
      }),
    )
    t.same(
      rounds.map((r) => r.wins),
      tokens.map(() => 1),
      'exactly one redemption of each token succeeded',
    )
    t.ok(
      rounds.every((r) => r.refused === 3 && r.cookies === 1),
      'the three others were refused, with no cookie',
    )
  })
}

/**
 * Two mobisite servers in separate processes on one Redis (RedisStore, one
 * random prefix): what one does the other sees, and racing them against each
 * other breaks no rule (unique names, the daily limit, the first-publish
 * charge, grants against deletes) and loses nothing.
 * Needs REDIS_URL; without it the file skips and says so.
 */
import t from 'tap'
import { multiInstanceSuite } from '../../helpers/multi-instance.js'
import { REDIS_URL, deleteUnder, redisOrSkip } from '../../helpers/redis.js'

const admin = await redisOrSkip(t, 'Redis multi-instance suite')

if (admin && REDIS_URL) {
  await multiInstanceSuite(t, REDIS_URL, (prefix) => deleteUnder(admin, prefix))
}

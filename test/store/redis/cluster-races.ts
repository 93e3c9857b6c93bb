/**
 * Two mobisite servers in separate processes on one Redis Cluster: the races
 * of test/store/redis/multi-instance.ts (one winner of 50 creates of a name, exactly
 * 300 of 400 analytics calls under the daily limit, one first-publish charge,
 * grants racing a delete, nothing lost), now with every rule spread over
 * slots on three primaries. Needs REDIS_CLUSTER_URL; without it the file skips.
 */
import t from 'tap'
import { multiInstanceSuite } from '../../helpers/multi-instance.js'
import { REDIS_CLUSTER_URL, clusterDeleteUnder, clusterOrSkip } from '../../helpers/redis-cluster.js'

const admin = await clusterOrSkip(t, 'Redis Cluster multi-instance suite')

if (admin && REDIS_CLUSTER_URL) {
  await multiInstanceSuite(t, REDIS_CLUSTER_URL, (prefix) => clusterDeleteUnder(admin, prefix))
}

/**
 * Site events, in the shape of today's Duda webhooks: what the rules emit
 * when a site is created, published, unpublished or deleted, whichever way
 * the call came (the spec's paths, Duda's paths, in process, a first visit
 * that builds and publishes a site). The test-double webhooks subscribe to
 * them. While nobody listens an emit costs one size check, and the rules do
 * no extra store read for an event.
 */
import type { PublishData, SiteEvent, SiteEventType } from '../../../types/index.js'
import type { SiteRecord } from '../../store/contract/index.js'

export type { PublishData, SiteEvent, SiteEventType }

/** Called with every event, synchronously, while the rule that caused it runs. */
export type SiteEventListener = (event: SiteEvent) => void

/** The listeners of one engine. */
export class EventHub {
  private readonly listeners = new Set<SiteEventListener>()

  /** Whether anyone listens; rules skip the reads an event needs when nobody does. */
  get active(): boolean {
    return this.listeners.size > 0
  }

  /** Adds a listener; the returned function removes it. */
  subscribe(listener: SiteEventListener): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /** Hands the event to every listener. A listener that throws never fails the call that caused it. */
  emit(event: SiteEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event)
      } catch {
        // The listener's own failure; the API answer does not depend on it.
      }
    }
  }
}

/** Emits a site event stamped by the engine clock, if anyone listens. */
export function emitSiteEvent(
  ctx: { readonly events: EventHub; now(): Date },
  event_type: SiteEventType,
  site: Pick<SiteRecord, 'site_name' | 'owner' | 'external_uid'>,
  data?: SiteEvent['data'],
): void {
  if (!ctx.events.active) return
  const event: SiteEvent = {
    event_type,
    event_timestamp: ctx.now().getTime(),
    resource_type: 'site',
    resource_data:
      site.external_uid === undefined
        ? { site_name: site.site_name }
        : { site_name: site.site_name, external_id: site.external_uid },
    source: { type: 'API', account_name: site.owner },
  }
  if (data !== undefined) event.data = data
  ctx.events.emit(event)
}

/** PUBLISH's data for a publish of the site as it was just before. */
export function publishData(before: Pick<SiteRecord, 'published_at' | 'first_published_at'>): PublishData {
  return { republish: before.published_at !== undefined, first_publish: before.first_published_at === undefined }
}

/**
 * mobisite/edge's cost per request beside the Express middleware's, in one
 * process on the same UAs (every distinct UA of the user-agents corpus, as
 * page navigations), best of interleaved rounds:
 * - Express: `mobileRedirect` called directly with minimal req/res objects
 *   (the decision and its header writes, without Express's dispatch);
 * - edge: `decide()` on a web `Request` built beforehand, `decide()` on one
 *   built per call (what a runtime hands over is built anyway; the figure
 *   says what building it costs), and `handle()` with a `next()` that
 *   returns a page, awaited.
 * Then the size of the minified bundle (esbuild, ESM) and its gzip.
 *
 *   npx tsx benchmark/edge.ts      # a few seconds
 */
import { gzipSync } from 'node:zlib'
import * as esbuild from 'esbuild'
import type { NextFunction, Request as ExpressRequest, Response as ExpressResponse } from 'express'
import { createMobileRedirect } from '../lib/edge.js'
import { mobileRedirect } from '../lib/redirect/middleware.js'
import { corpusUserAgents } from '../test/helpers/agents-corpus.js'
import { figure } from './lib/report.js'

const PATH = '/products/42?ref=home'
const NAVIGATION = { 'sec-fetch-dest': 'document', accept: 'text/html,application/xhtml+xml,*/*;q=0.8' }
const uas = corpusUserAgents
const ROUNDS = 9

/** A response of the fields the middleware touches, its headers in a plain object. */
function minimalResponse() {
  const headers: Record<string, string | string[]> = {}
  return {
    statusCode: 200,
    headers,
    getHeader: (name: string) => headers[name.toLowerCase()],
    setHeader(name: string, value: string | string[]) {
      headers[name.toLowerCase()] = value
    },
    append(name: string, value: string) {
      const key = name.toLowerCase()
      const had = headers[key]
      headers[key] = had === undefined ? value : [...[had].flat(), value]
    },
    vary(value: string) {
      headers.vary = `${headers.vary}, ${value}`
    },
    location(url: string) {
      headers.location = url
    },
    end() {},
    reset() {
      for (const key of Object.keys(headers)) delete headers[key]
      this.statusCode = 200
    },
  }
}

/** Express: the middleware called directly, one minimal request per UA. */
function expressContender(): () => number {
  const mw = mobileRedirect({ mobileUrl: 'https://m.example.com' })
  const reqs = uas.map(
    (ua) =>
      ({
        method: 'GET',
        url: PATH,
        originalUrl: PATH,
        headers: { host: 'www.example.com', 'user-agent': ua, ...NAVIGATION },
        socket: {},
      }) as unknown as ExpressRequest,
  )
  const res = minimalResponse()
  const next = (() => undefined) as NextFunction
  return () => {
    const start = process.hrtime.bigint()
    for (const req of reqs) {
      res.reset()
      mw(req, res as unknown as ExpressResponse, next)
    }
    return Number(process.hrtime.bigint() - start) / reqs.length
  }
}

const edge = createMobileRedirect({ mobileUrl: 'https://m.example.com' })
const requestOf = (ua: string) =>
  new Request(`https://www.example.com${PATH}`, { headers: { 'user-agent': ua, ...NAVIGATION } })

/** Edge `decide()`: on Requests built beforehand, or built in the loop. */
function decideContender(build: boolean): () => number {
  const built = uas.map(requestOf)
  return () => {
    let sink = 0
    const start = process.hrtime.bigint()
    for (let i = 0; i < uas.length; i++) {
      const d = edge.decide(build ? requestOf(uas[i] as string) : (built[i] as Request))
      if (d.redirect !== undefined) sink++
    }
    const ns = Number(process.hrtime.bigint() - start) / uas.length
    return sink < 0 ? 0 : ns
  }
}

/** Edge `handle()`, awaited, its `next()` a small page; Requests built beforehand. */
function handleContender(): () => Promise<number> {
  const built = uas.map(requestOf)
  const page = () => new Response('desktop', { headers: { 'content-type': 'text/html' } })
  return async () => {
    const start = process.hrtime.bigint()
    for (const request of built) await edge.handle(request, page)
    return Number(process.hrtime.bigint() - start) / built.length
  }
}

async function main(): Promise<void> {
  const contenders: Array<[string, () => number | Promise<number>]> = [
    ['Express mobileRedirect, called directly', expressContender()],
    ['edge decide(), Request built beforehand', decideContender(false)],
    ['edge decide(), Request built per call', decideContender(true)],
    ['edge handle(), awaited, Request built beforehand', handleContender()],
  ]
  for (const [, run] of contenders) await run() // warm-up
  const best = contenders.map(() => Infinity)
  for (let round = 0; round < ROUNDS; round++) {
    // The order alternates, so a slow spell of the machine hits every contender alike.
    const order = round % 2 === 0 ? contenders.keys() : [...contenders.keys()].reverse()
    for (const i of order) best[i] = Math.min(best[i] as number, await (contenders[i] as [string, () => number])[1]())
  }
  const express = best[0] as number
  const phones = uas.filter((ua) => edge.decide(requestOf(ua)).redirect !== undefined).length
  console.log(`\n${uas.length} distinct corpus UAs (${phones} redirected), best of ${ROUNDS} rounds:\n`)
  console.log('| contender | ns/request | × Express |')
  console.log('|---|---:|---:|')
  contenders.forEach(([name], i) => {
    const ns = best[i] as number
    console.log(`| ${name} | ${ns.toFixed(0)} | ${(ns / express).toFixed(2)} |`)
  })
  console.log('')
  contenders.forEach(([name], i) => {
    const ns = best[i] as number
    if (i === 0) return
    figure({
      group: 'redirect',
      name: `mobisite/edge ${name.replace(/^edge /, '')}`,
      value: Math.round(ns),
      unit: 'ns/request',
      anchor: 'Express mobileRedirect, called directly with minimal req/res',
      anchorValue: Math.round(express),
      ratio: Number((ns / express).toFixed(2)),
      note: `${uas.length} corpus UAs as navigations, ${phones} redirected; ratio = edge / Express; Node's web Headers and URL cost more than workerd's native ones`,
    })
  })

  const built = await esbuild.build({
    entryPoints: ['lib/edge.ts'],
    bundle: true,
    write: false,
    minify: true,
    platform: 'neutral',
    mainFields: ['module', 'main'],
    format: 'esm',
    target: 'es2022',
  })
  const code = built.outputFiles[0]?.text ?? ''
  const bytes = Buffer.byteLength(code)
  const gzip = gzipSync(code, { level: 9 }).length
  console.log(`\nbundle of lib/edge.ts (esbuild, ESM, minified): ${bytes} bytes, ${gzip} bytes gzip`)
  figure({
    group: 'redirect',
    name: 'mobisite/edge bundle, minified',
    value: bytes,
    unit: 'bytes',
    target: '<= 32768',
    targetOf: 'value',
  })
  figure({
    group: 'redirect',
    name: 'mobisite/edge bundle, gzip',
    value: gzip,
    unit: 'bytes',
    target: '<= 12288',
    targetOf: 'value',
  })
}

await main()

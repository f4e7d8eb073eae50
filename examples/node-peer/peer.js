#!/usr/bin/env node
// A small AGH Network v0 peer on NATS: it joins one workspace channel,
// answers whois, and serves directed work by echoing the request back.
//
// Configuration is the aghcheck IUT contract: AGH_NATS_URL (one URL or
// several, comma-separated), AGH_NATS_TOKEN, AGH_NATS_USER and
// AGH_NATS_PASSWORD or AGH_NATS_CREDS, AGH_WORKSPACE_ID, AGH_CHANNEL,
// AGH_PEER_ID and AGH_GREET_INTERVAL (seconds, default 30).

import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { connect, credsAuthenticator } from 'nats';

import {
  PROTOCOL, TERMINAL_STATES, answerable, capabilityDigest, check, containerOf, parse, routeToken, sameContainer,
} from './protocol.js';

const env = process.env;
const self = env.AGH_PEER_ID || `node-peer.${randomUUID().slice(0, 8)}`;
const workspace = env.AGH_WORKSPACE_ID;
const channel = env.AGH_CHANNEL || 'default';
const greetSeconds = Number(env.AGH_GREET_INTERVAL || 30);
if (!workspace || !(greetSeconds > 0)) {
  console.error('node-peer: set AGH_WORKSPACE_ID (and AGH_GREET_INTERVAL, if at all, to a positive number of seconds)');
  process.exit(2);
}

const prefix = `agh.network.v0.${workspace}.${channel}`;
const broadcastSubject = `${prefix}.broadcast`;
const ownSubject = `${prefix}.peer.${routeToken(self)}`;
const log = (...words) => console.error('node-peer:', ...words);
const now = () => Math.floor(Date.now() / 1000);

// The one capability this peer offers; its digest is computed, never
// written by hand.
const echo = {
  id: 'echo',
  summary: 'Echo the request text back as the work result.',
  outcome: 'A completed trace whose result.echo is the request text.',
  version: '1.0.0',
};
echo.digest = capabilityDigest(echo);

const card = {
  peer_id: self,
  display_name: 'Node.js example peer',
  profiles_supported: [PROTOCOL],
  capabilities: [echo.id],
  artifacts_supported: [],
  trust_modes_supported: ['unverified'],
  ext: { 'agh.capabilities_brief': [{ id: echo.id, summary: echo.summary }] },
};

// Work where this peer is the target, by work_id; and the (sender, id)
// pairs seen within the replay window, to process each message once.
const works = new Map();
const seen = new Map();

const nc = await connect({
  servers: (env.AGH_NATS_URL || 'nats://127.0.0.1:4222').split(','),
  name: self,
  token: env.AGH_NATS_TOKEN || undefined,
  user: env.AGH_NATS_USER || undefined,
  pass: env.AGH_NATS_PASSWORD || undefined,
  authenticator: env.AGH_NATS_CREDS ? credsAuthenticator(readFileSync(env.AGH_NATS_CREDS)) : undefined,
  maxReconnectAttempts: -1,
});

function publish(envelope) {
  const subject = envelope.to ? `${prefix}.peer.${routeToken(envelope.to)}` : broadcastSubject;
  nc.publish(subject, JSON.stringify(envelope));
}

function envelope(kind, fields, body) {
  return { protocol: PROTOCOL, id: randomUUID(), workspace_id: workspace, kind, channel, from: self, to: null, ts: now(), ...fields, body, proof: null };
}

const greet = () => publish(envelope('greet', {}, { peer_card: card, summary: 'Send me directed work: I echo it back.' }));

// replyFields addresses an answer to msg's sender, in msg's work and
// container, caused by msg.
function replyFields(msg, container = containerOf(msg)) {
  const fields = { to: msg.from, ...container, work_id: msg.work_id, causation_id: msg.id };
  // Only a sound trace_id is carried on: an answer must not repeat what
  // broke the message it answers.
  if (typeof msg.trace_id === 'string' && msg.trace_id.trim() !== '') fields.trace_id = msg.trace_id;
  return fields;
}

function receipt(msg, status, reasonCode, container) {
  const body = { for_id: msg.id, status };
  if (reasonCode) body.reason_code = reasonCode;
  publish(envelope('receipt', { ...replyFields(msg, container), reply_to: msg.id }, body));
}

// refuse answers a refused message with a receipt of its failure class,
// when it is one that can be answered.
function refuse(msg, reasonCode) {
  log('refused', msg.kind, msg.id, reasonCode);
  if (!answerable(msg)) return;
  const status = ['expired', 'duplicate'].includes(reasonCode) ? reasonCode
    : reasonCode.startsWith('unsupported_') ? 'unsupported' : 'rejected';
  receipt(msg, status, reasonCode);
}

function trace(msg, work, body) {
  work.state = body.state;
  publish(envelope('trace', { ...replyFields(msg, work.container), to: work.initiator }, body));
}

function handle(subject, data) {
  const msg = parse(data);
  if (msg === null) return log('dropped: not one JSON object');
  // Not ours: our own echo, another workspace or channel, or directed
  // traffic for someone else seen on the broadcast subject.
  if (msg.from === self || msg.workspace_id !== workspace || msg.channel !== channel) return;
  if (msg.to != null && msg.to !== self && subject !== ownSubject) return;

  const problem = check(msg, now());
  if (problem) {
    if (problem.sound) refuse(msg, problem.reason);
    else log('dropped:', problem.reason);
    return;
  }
  if (msg.to != null && msg.to !== self) return refuse(msg, 'not_target');
  const key = `${msg.from}\n${msg.id}`;
  if (seen.has(key)) return refuse(msg, 'duplicate');
  seen.set(key, Math.max(now(), msg.expires_at ?? 0) + 300);

  const directed = msg.to === self;
  switch (msg.kind) {
    case 'whois':
      return whois(msg, directed);
    case 'say':
    case 'capability':
    case 'receipt':
    case 'trace':
      if (directed && msg.work_id != null) return lifecycle(msg);
      if (msg.kind === 'say') log('say from', msg.from + ':', msg.body.text);
  }
}

// whois: a directed request is always answered; a broadcast one only when
// its query names this peer or something its card lists.
function whois(msg, directed) {
  if (msg.body.type !== 'request') return;
  const query = (msg.body.query ?? '').trim();
  const listed = [self, card.display_name, ...card.profiles_supported, ...card.capabilities, ...card.artifacts_supported, ...card.trust_modes_supported];
  if (!directed && query !== '' && !listed.includes(query)) return;
  const fields = { to: msg.from, reply_to: msg.id };
  const include = msg.ext?.['agh.include'];
  if (include === 'capability_catalog' || (Array.isArray(include) && include.includes('capability_catalog'))) {
    const ids = msg.ext['agh.capability_ids'];
    const capabilities = [echo].filter((c) => !Array.isArray(ids) || ids.includes(c.id));
    fields.ext = { 'agh.capability_catalog': { capabilities } };
  }
  publish(envelope('whois', fields, { type: 'response', peer_card: card }));
}

// lifecycle applies a directed message carrying a work_id to its work.
function lifecycle(msg) {
  const work = works.get(msg.work_id);
  if (!work) {
    // A say or capability with a new work_id opens work; receipts and
    // traces for work we never saw change nothing.
    if (msg.kind === 'say' || msg.kind === 'capability') open(msg);
    return;
  }
  if (!sameContainer(containerOf(msg), work.container)) return refuse(msg, 'work_container_mismatch');
  if (msg.from !== work.initiator) return refuse(msg, 'not_target');
  const closed = TERMINAL_STATES.includes(work.state);
  if (msg.kind === 'receipt') {
    if (msg.body.status !== 'canceled' || work.state === 'canceled') return; // cancelling twice is a no-op
    if (closed) return receipt(msg, 'rejected', 'work_closed', work.container);
    return trace(msg, work, { state: 'canceled', message: 'Canceled by the initiator.' });
  }
  // A say, capability or trace from the initiator: this peer's work is
  // never waiting for input, so on open work it is conversation.
  if (closed) receipt(msg, 'rejected', 'work_closed', work.container);
}

function open(msg) {
  const work = { initiator: msg.from, container: containerOf(msg), state: 'submitted' };
  works.set(msg.work_id, work);
  receipt(msg, 'accepted', undefined, work.container);
  trace(msg, work, { state: 'working' });
  const echoed = msg.kind === 'say' ? msg.body.text : msg.body.capability.id;
  trace(msg, work, { state: 'completed', message: 'Echoed.', result: { echo: echoed } });
}

// Forget (sender, id) pairs once their replay window has passed.
function sweep() {
  const t = now();
  for (const [key, until] of seen) if (until < t) seen.delete(key);
}

const subscription = (subject) => nc.subscribe(subject, { callback: (err, m) => err ? log(err.message) : handle(m.subject, m.data) });
subscription(broadcastSubject);
subscription(ownSubject);
await nc.flush(); // subscribed before announcing ourselves
greet();
log(`joined ${prefix} as ${self}`);
const timer = setInterval(() => { greet(); sweep(); }, greetSeconds * 1000);

// Greet again after the broker connection comes back.
(async () => {
  for await (const s of nc.status()) if (s.type === 'reconnect') greet();
})();

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, async () => {
    clearInterval(timer);
    await nc.drain();
    process.exit(0);
  });
}
await nc.closed();
